import { Search } from 'lucide-react';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button.js';
import { Card } from '../../../components/ui/card.js';
import { Field, Label, inputClass } from '../../../components/ui/form.js';
import { parsePriceInput } from '../../../lib/format-price.js';
import type { AuctionFilters, NamedRef } from '../../../lib/listing-types.js';
import { EMPTY_FILTERS, zipOrEmpty } from '../../../lib/dashboard-params.js';
import { RADIUS_OPTIONS } from '../../../lib/near.js';

type Draft = {
  category: string;
  priceMin: string;
  priceMax: string;
  location: string;
  searchQuery: string;
  nearZip: string;
  radiusMiles: string;
  maxDelivered: string;
  worthTheTrip: boolean;
};

function toDraft(f: AuctionFilters): Draft {
  return {
    category: f.category === null ? '' : String(f.category),
    priceMin: f.priceMin === null ? '' : String(f.priceMin),
    priceMax: f.priceMax === null ? '' : String(f.priceMax),
    location: f.location,
    searchQuery: f.searchQuery,
    nearZip: f.nearZip,
    radiusMiles: f.radiusMiles === null ? '' : String(f.radiusMiles),
    maxDelivered: f.maxDelivered === null ? '' : String(f.maxDelivered),
    worthTheTrip: f.worthTheTrip,
  };
}

function fromDraft(d: Draft): AuctionFilters {
  return {
    category: d.category === '' ? null : Number(d.category),
    priceMin: parsePriceInput(d.priceMin),
    priceMax: parsePriceInput(d.priceMax),
    location: d.location.trim(),
    searchQuery: d.searchQuery.trim(),
    nearZip: zipOrEmpty(d.nearZip),
    radiusMiles: zipOrEmpty(d.nearZip) && d.radiusMiles !== '' ? Number(d.radiusMiles) : null,
    // Delivered prices are to a ZIP code: without one these filter nothing and are not sent.
    maxDelivered: zipOrEmpty(d.nearZip) ? parsePriceInput(d.maxDelivered) : null,
    worthTheTrip: zipOrEmpty(d.nearZip) !== '' && d.worthTheTrip,
  };
}

/**
 * Category applies at once; prices, location and search apply with Apply Filters or Search
 * (or Enter), so typing does not fire a request per keystroke.
 */
export function FilterPanel({
  filters,
  categories,
  onApply,
  onClear,
}: {
  filters: AuctionFilters;
  categories: NamedRef[];
  onApply: (filters: AuctionFilters) => void;
  onClear: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => toDraft(filters));
  const categoryId = useId();
  // Follow the applied filters when they change (Clear All, back/forward), not on every render.
  const appliedKey = JSON.stringify(filters);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => setDraft(toDraft(filters)), [appliedKey]);

  const set = (name: Exclude<keyof Draft, 'worthTheTrip'>) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [name]: e.target.value }));
  const hasZip = /^\d{5}$/.test(draft.nearZip.trim());

  function submit(event: FormEvent) {
    event.preventDefault();
    onApply(fromDraft(draft));
  }

  return (
    <Card className="p-5">
      <h2 className="mb-4 text-base font-semibold">Filters</h2>
      <form onSubmit={submit} className="space-y-4" aria-label="Filter deals" role="search">
        <div className="space-y-1.5">
          <Label htmlFor={categoryId}>Category</Label>
          <select
            id={categoryId}
            className={inputClass}
            value={draft.category}
            onChange={(e) => {
              const next = { ...draft, category: e.target.value };
              setDraft(next);
              onApply(fromDraft(next));
            }}
          >
            <option value="">All Categories</option>
            {categories.map((c) => (
              <option key={c.id} value={String(c.id)}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div className="grid grid-cols-2 gap-3">
          <Field label="Min Price" name="priceMin" type="number" inputMode="numeric" min={0} step="any" placeholder="0" value={draft.priceMin} onChange={set('priceMin')} />
          <Field label="Max Price" name="priceMax" type="number" inputMode="numeric" min={0} step="any" placeholder="Any" value={draft.priceMax} onChange={set('priceMax')} />
        </div>
        <Field label="Location" name="location" placeholder="State or city" maxLength={100} value={draft.location} onChange={set('location')} />
        <div className="grid grid-cols-2 gap-3">
          <Field
            label="Near ZIP"
            name="nearZip"
            inputMode="numeric"
            pattern="[0-9]{5}"
            title="A 5-digit US ZIP code"
            placeholder="e.g. 50309"
            maxLength={5}
            value={draft.nearZip}
            onChange={set('nearZip')}
          />
          <div className="space-y-1.5">
            <Label htmlFor={`${categoryId}-radius`}>Within</Label>
            <select id={`${categoryId}-radius`} name="radiusMiles" className={inputClass} value={draft.radiusMiles} onChange={set('radiusMiles')} disabled={!hasZip}>
              <option value="">Any distance</option>
              {RADIUS_OPTIONS.map((miles) => (
                <option key={miles} value={String(miles)}>
                  {miles} miles
                </option>
              ))}
            </select>
          </div>
        </div>
        <Field
          label="Max delivered $"
          name="maxDelivered"
          type="number"
          inputMode="numeric"
          min={0}
          step="any"
          placeholder={hasZip ? 'Any' : 'Set a Near ZIP'}
          value={draft.maxDelivered}
          onChange={set('maxDelivered')}
          disabled={!hasZip}
          hint="Price, stated premium and the haul's high estimate to your ZIP."
        />
        <div className="flex items-start gap-2">
          <input
            id={`${categoryId}-worth`}
            name="worthTheTrip"
            type="checkbox"
            className="mt-1 h-4 w-4"
            checked={draft.worthTheTrip && hasZip}
            disabled={!hasZip}
            aria-describedby={`${categoryId}-worth-hint`}
            onChange={(e) => setDraft((d) => ({ ...d, worthTheTrip: e.target.checked }))}
          />
          <div>
            <Label htmlFor={`${categoryId}-worth`}>Worth the trip</Label>
            <p id={`${categoryId}-worth-hint`} className="text-xs text-slate-600">
              Only lots whose discount under fair value beats the haul's high estimate.
            </p>
          </div>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor={`${categoryId}-search`}>Search</Label>
          <div className="flex gap-2">
            <input
              id={`${categoryId}-search`}
              name="search"
              type="search"
              className={inputClass}
              placeholder="Make, model, keywords"
              maxLength={200}
              value={draft.searchQuery}
              onChange={set('searchQuery')}
            />
            <Button type="submit" variant="secondary" aria-label="Search">
              <Search className="h-4 w-4" aria-hidden />
              <span className="sr-only sm:not-sr-only lg:sr-only">Search</span>
            </Button>
          </div>
        </div>
        <div className="flex flex-col gap-2 pt-1">
          <Button type="submit">Apply Filters</Button>
          <Button
            type="button"
            variant="ghost"
            onClick={() => {
              setDraft(toDraft(EMPTY_FILTERS));
              onClear();
            }}
          >
            Clear All
          </Button>
        </div>
      </form>
    </Card>
  );
}
