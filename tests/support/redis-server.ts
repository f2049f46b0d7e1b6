/** Starts a throw-away redis-server on a free port (no persistence). */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { reservePort } from './ports.js';

export function assertRedisServerInstalled(): void {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'redis-server is not on the PATH. The queue tests run BullMQ on Redis too.\n' +
        'Install it with: sudo apt-get install -y redis-server   (Debian/Ubuntu)\n' +
        '             or: brew install redis                   (macOS)',
    );
  }
}

export async function startRedisServer(): Promise<{ url: string; stop(): Promise<void>; child: ChildProcess }> {
  assertRedisServerInstalled();
  const port = await reservePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with code ${code}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
