import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, Monitor, Moon, Sun } from 'lucide-react';
import { useTheme, type Theme } from '../lib/theme.js';

const OPTIONS: Array<{ value: Theme; label: string; Icon: typeof Sun }> = [
  { value: 'light', label: 'Light', Icon: Sun },
  { value: 'dark', label: 'Dark', Icon: Moon },
  { value: 'system', label: 'System', Icon: Monitor },
];

const itemClass = 'flex cursor-pointer items-center gap-2 rounded-md px-2 py-2 text-sm text-slate-800 outline-none data-[highlighted]:bg-slate-100';

/** The top navigation's theme menu: Light, Dark or System. */
export function ThemeSwitch() {
  const { theme, resolvedTheme, setTheme } = useTheme();
  const Icon = resolvedTheme === 'dark' ? Moon : Sun;
  const current = OPTIONS.find((o) => o.value === theme)!.label;
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger asChild>
        <button type="button" className="inline-flex h-10 w-10 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100" aria-label={`Theme: ${current}. Change theme`}>
          <Icon className="h-5 w-5" aria-hidden />
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="end" sideOffset={8} className="z-50 min-w-40 rounded-lg border border-slate-200 bg-white p-1 shadow-lg">
          <DropdownMenu.Label className="px-2 py-1.5 text-xs font-semibold text-slate-700">Theme</DropdownMenu.Label>
          <DropdownMenu.RadioGroup value={theme} onValueChange={(v) => setTheme(v as Theme)}>
            {OPTIONS.map(({ value, label, Icon: ItemIcon }) => (
              <DropdownMenu.RadioItem key={value} value={value} className={itemClass}>
                <ItemIcon className="h-4 w-4" aria-hidden />
                <span className="flex-1">{label}</span>
                <DropdownMenu.ItemIndicator>
                  <Check className="h-4 w-4" aria-hidden />
                </DropdownMenu.ItemIndicator>
              </DropdownMenu.RadioItem>
            ))}
          </DropdownMenu.RadioGroup>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
