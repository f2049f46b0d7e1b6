import { Toaster as Sonner } from 'sonner';
import { TOAST_DURATION_MS } from '../../config/constants.js';

/** Toasts last 5000 ms; Alt+T focuses them (spec §9). */
export function Toaster() {
  return <Sonner position="top-right" duration={TOAST_DURATION_MS} hotkey={['altKey', 'KeyT']} richColors closeButton />;
}
