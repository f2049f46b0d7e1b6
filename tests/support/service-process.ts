/**
 * A product entry point (`services/<name>/main.ts`, or the CLI) as a real child process against a
 * test database: what the fault tests start, stop with a signal or kill, and start again.
 * Output is kept (bounded) for assertions and for the failure message.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '../..');
const KEEP_CHARS = 400_000;

export type ServiceProcess = {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  /** Sends the signal and waits for the end. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
};

/** The environment every child shares: the test database, PostgreSQL queues, no source, quiet crawls. */
export function baseEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_URL: '',
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
    SHARED_DIR: path.resolve(repo, process.env.SHARED_DIR ?? '../shared'),
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    HEALTH_PORT: '0',
    HEALTH_HOST: '127.0.0.1',
    CRAWL_SOURCES: '',
    CRAWL_ALLOW_ONLY_LOOPBACK: 'true',
    VALUATION_BOOTSTRAP: 'false',
    ...extra,
  };
}

export function startProcess(script: string, args: string[], env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > KEEP_CHARS) output = output.slice(-KEEP_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    child,
    output: () => output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export function startService(name: 'scorer' | 'crawler' | 'matcher' | 'notifier' | 'scheduler', env: Record<string, string>): ServiceProcess {
  return startProcess(`services/${name}/main.ts`, [], env);
}

/** Runs an operator command to its end: its exit code and output. */
export async function runCliCommand(args: string[], env: Record<string, string>): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | string>((resolve) => child.once('exit', (c, s) => resolve(c ?? s ?? 'unknown')));
  return { code, stdout, stderr };
}

/** The JSON log lines of a process's output (other lines skipped). */
export function logLines(output: string): Array<Record<string, unknown>> {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
