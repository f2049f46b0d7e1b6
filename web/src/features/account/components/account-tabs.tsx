import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { cn } from '../../../lib/cn.js';

export type TabDef = { id: string; label: string; content: ReactNode };

/** WAI-ARIA tabs: one tab stop, arrow keys/Home/End move between tabs, the panel follows. */
export function AccountTabs({ tabs, value, onChange }: { tabs: TabDef[]; value: string; onChange: (id: string) => void }) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const index = Math.max(0, tabs.findIndex((t) => t.id === value));

  function onKeyDown(event: KeyboardEvent) {
    const last = tabs.length - 1;
    const next = event.key === 'ArrowRight' ? (index === last ? 0 : index + 1) : event.key === 'ArrowLeft' ? (index === 0 ? last : index - 1) : event.key === 'Home' ? 0 : event.key === 'End' ? last : null;
    if (next === null) return;
    event.preventDefault();
    onChange(tabs[next]!.id);
    refs.current[next]?.focus();
  }

  const active = tabs[index]!;
  return (
    <div>
      <div role="tablist" aria-label="Account sections" className="flex flex-wrap gap-1 rounded-lg bg-slate-100 p-1" onKeyDown={onKeyDown}>
        {tabs.map((tab, i) => (
          <button
            key={tab.id}
            ref={(el) => {
              refs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={i === index}
            aria-controls={`panel-${tab.id}`}
            tabIndex={i === index ? 0 : -1}
            onClick={() => onChange(tab.id)}
            className={cn('rounded-md px-4 py-2 text-sm font-medium', i === index ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-700 hover:text-slate-900')}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${active.id}`} aria-labelledby={`tab-${active.id}`} tabIndex={0} className="mt-6 rounded-lg">
        {active.content}
      </div>
    </div>
  );
}
