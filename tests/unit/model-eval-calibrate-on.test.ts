import { describe, expect, it } from 'vitest';
import { runModelEval } from '../../scripts/cli/model-eval-command.js';

/** model:eval's usage errors come before any file is read or model trained: exit 2 and a line on stderr. */
async function usageError(args: string[]): Promise<string> {
  const stderr: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    expect(await runModelEval(args, () => {})).toBe(2);
  } finally {
    process.stderr.write = write;
  }
  return stderr.join('');
}

describe('model:eval --calibrate-on', () => {
  it('takes values or trees, on both protocols', async () => {
    expect(await usageError(['--protocol', 'west', '--calibrate-on', 'errors'])).toContain('--calibrate-on takes values or trees');
    expect(await usageError(['--train', 'a.csv', '--test', 'b.csv', '--calibrate-on', 'errors'])).toContain('--calibrate-on takes values or trees');
  });

  it('is refused beside --load-model, whose model keeps the calibration it was saved with', async () => {
    expect(await usageError(['--train', 'a.csv', '--test', 'b.csv', '--calibrate-on', 'trees', '--load-model', 'm.json'])).toContain('keeps the calibration it was saved with');
  });
});

describe('model:eval --spread', () => {
  it('takes source or lot, and is refused beside --load-model', async () => {
    expect(await usageError(['--protocol', 'west', '--spread', 'wide'])).toContain('--spread takes source or lot');
    expect(await usageError(['--train', 'a.csv', '--test', 'b.csv', '--spread', 'lot', '--load-model', 'm.json'])).toContain('keeps the spread it was saved with');
  });
});
