/**
 * Long CPU-bound threads (a training) yield to the threads that answer requests: on Linux a thread
 * is its own task, and `setpriority` on its task id renices that thread alone. Elsewhere (no
 * /proc/thread-self) nothing changes.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** This thread's Linux task id, or null where there is none to read. */
export function threadTaskId(): number | null {
  try {
    // "/proc/<pid>/task/<tid>"
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** Lowers this thread's scheduling priority to `nice` (0–19; a thread may always lower its own). Returns whether it did. */
export function lowerThreadPriority(nice = 10): boolean {
  const tid = threadTaskId();
  if (tid === null) return false;
  try {
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

/** This thread's nice value (0 where it cannot be read): a helper thread it starts takes the same. */
export function threadPriority(): number {
  const tid = threadTaskId();
  try {
    return tid === null ? 0 : getPriority(tid);
  } catch {
    return 0;
  }
}
