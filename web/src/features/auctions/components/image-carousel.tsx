import { ChevronLeft, ChevronRight, ImageOff } from 'lucide-react';
import { useState, type KeyboardEvent } from 'react';
import { Button } from '../../../components/ui/button.js';

/** Only string entries of the images list are used (spec §2). */
export function usableImages(images: unknown): string[] {
  return Array.isArray(images) ? images.filter((i): i is string => typeof i === 'string' && i.trim() !== '') : [];
}

export function ImageCarousel({ images, alt }: { images: string[]; alt: string }) {
  const [index, setIndex] = useState(0);
  const [failed, setFailed] = useState<Set<number>>(() => new Set());
  const count = images.length;

  if (count === 0) {
    return (
      <div className="flex aspect-[4/3] flex-col items-center justify-center gap-2 rounded-lg bg-slate-100 text-slate-600">
        <ImageOff className="h-10 w-10" aria-hidden />
        <p>No images available</p>
      </div>
    );
  }

  const current = Math.min(index, count - 1);
  const prev = () => setIndex((i) => (i - 1 + count) % count);
  const next = () => setIndex((i) => (i + 1) % count);
  const onKeyDown = (e: KeyboardEvent) => {
    if (count < 2) return;
    if (e.key === 'ArrowLeft') prev();
    if (e.key === 'ArrowRight') next();
  };

  return (
    <div className="space-y-2">
      <div
        className="relative aspect-[4/3] overflow-hidden rounded-lg bg-slate-100"
        role="group"
        aria-roledescription="carousel"
        aria-label={`Photos of ${alt}`}
        tabIndex={count > 1 ? 0 : undefined}
        onKeyDown={onKeyDown}
      >
        {failed.has(current) ? (
          <div className="flex h-full flex-col items-center justify-center gap-1 text-slate-600">
            <ImageOff className="h-10 w-10" aria-hidden />
            <p>Image unavailable</p>
            <p className="text-sm">
              Image {current + 1} of {count}
            </p>
          </div>
        ) : (
          <img
            key={images[current]}
            src={images[current]}
            alt={`${alt} — image ${current + 1} of ${count}`}
            className="h-full w-full object-contain"
            onError={() => setFailed((f) => new Set(f).add(current))}
          />
        )}
        {count > 1 && (
          <>
            <Button variant="secondary" size="icon" className="absolute top-1/2 left-2 -translate-y-1/2 rounded-full shadow" onClick={prev} aria-label="Previous image">
              <ChevronLeft className="h-5 w-5" aria-hidden />
            </Button>
            <Button variant="secondary" size="icon" className="absolute top-1/2 right-2 -translate-y-1/2 rounded-full shadow" onClick={next} aria-label="Next image">
              <ChevronRight className="h-5 w-5" aria-hidden />
            </Button>
            <span className="absolute right-2 bottom-2 rounded bg-slate-900/75 px-2 py-0.5 text-xs text-white" aria-live="polite">
              {current + 1} / {count}
            </span>
          </>
        )}
      </div>
      {count > 1 && <p className="text-sm text-slate-700">{count} images available</p>}
    </div>
  );
}
