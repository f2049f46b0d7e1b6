/**
 * The compose smoke's hands on Docker: run a command, find the engine and a Compose CLI (v2's
 * `docker compose` or Debian's `docker-compose` 1.29), and drive one compose project (its
 * containers by label, `exec` into a service, SQL through the postgres service's psql).
 * Everything goes through the docker CLI to the local engine; nothing here opens a connection.
 */
import { spawn } from 'node:child_process';

export type CommandResult = { code: number; stdout: string; stderr: string };

/** Runs a command to its end, capturing its output (never a shell: arguments are passed as they are). */
export function runCommand(
  argv: string[],
  opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number; cwd?: string } = {},
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env: opts.env, cwd: opts.cwd, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: 127, stdout, stderr: `${stderr}${err.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr: signal ? `${stderr}\nkilled by ${signal}` : stderr });
    });
    if (child.stdin) {
      // A command that exits before reading its input must not take this process down (EPIPE).
      child.stdin.on('error', () => {});
      child.stdin.end(opts.input);
    }
  });
}

/** The last lines of a command's output, for a failure message. */
export function tail(result: CommandResult, lines = 12): string {
  return `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-lines).join('\n');
}

/** Why there is no usable Docker engine, or null with the engine's version. */
export async function dockerEngine(): Promise<{ version: string } | { problem: string }> {
  const info = await runCommand(['docker', 'version', '--format', '{{.Server.Version}}'], { timeoutMs: 30_000 });
  if (info.code === 127) return { problem: 'no docker CLI on this host' };
  if (info.code !== 0 || !info.stdout.trim()) return { problem: `no Docker engine answers (${tail(info, 2).replace(/\n/g, ' ') || `docker version exited ${info.code}`})` };
  return { version: info.stdout.trim() };
}

export type ComposeCli = { argv: string[]; version: string; generation: 1 | 2 };

/** The Compose CLI to use: the one asked for, else v2's plugin when present, else `docker-compose`. */
export async function findCompose(asked?: string): Promise<ComposeCli | undefined> {
  const candidates = asked ? [asked.split(' ')] : [['docker', 'compose'], ['docker-compose']];
  for (const argv of candidates) {
    const res = await runCommand([...argv, 'version', '--short'], { timeoutMs: 30_000 });
    const version = res.stdout.trim().replace(/^v/, '');
    if (res.code === 0 && /^\d+\.\d+/.test(version)) return { argv, version, generation: Number(version.split('.')[0]) >= 2 ? 2 : 1 };
  }
  return undefined;
}

export type ContainerState = { id: string; name: string; service: string; state: string; health: string | null; ip: string | null };

export class ComposeStack {
  constructor(
    readonly cli: ComposeCli,
    readonly project: string,
    readonly envFile: string,
    readonly env: NodeJS.ProcessEnv,
    readonly cwd: string,
  ) {}

  /** `<compose> -p <project> --env-file <file> …args` in the repository. */
  compose(args: string[], timeoutMs = 20 * 60_000): Promise<CommandResult> {
    return runCommand([...this.cli.argv, '-p', this.project, '--env-file', this.envFile, ...args], { env: this.env, cwd: this.cwd, timeoutMs });
  }

  async composeOrThrow(args: string[], timeoutMs?: number): Promise<string> {
    const res = await this.compose(args, timeoutMs);
    if (res.code !== 0) throw new Error(`${this.cli.argv.join(' ')} ${args.join(' ')} exited ${res.code}:\n${tail(res)}`);
    return res.stdout;
  }

  /** Runs a command inside a service's container (the first replica unless `index` says). */
  async exec(service: string, argv: string[], opts: { index?: number; user?: string } = {}): Promise<CommandResult> {
    const flags = ['-T', ...(opts.index ? ['--index', String(opts.index)] : []), ...(opts.user ? ['--user', opts.user] : [])];
    return this.compose(['exec', ...flags, service, ...argv], 5 * 60_000);
  }

  /** Rows of a query, tab-separated fields, through psql in the postgres container. */
  async sql(query: string): Promise<string[][]> {
    const res = await this.exec('postgres', ['psql', '-U', 'dealradar', '-d', 'dealradar', '-At', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-c', query]);
    if (res.code !== 0) throw new Error(`psql: ${tail(res, 4)}`);
    return res.stdout
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => line.split('\t'));
  }

  /** One number from a query. */
  async count(query: string): Promise<number> {
    const rows = await this.sql(query);
    return Number(rows[0]?.[0] ?? NaN);
  }

  /** Every container of the project, running or not, with its health and address. */
  async containers(): Promise<ContainerState[]> {
    const ids = await runCommand(['docker', 'ps', '-aq', '--filter', `label=com.docker.compose.project=${this.project}`], { timeoutMs: 60_000 });
    const list = ids.stdout.split('\n').filter(Boolean);
    if (list.length === 0) return [];
    const format =
      '{{.Id}}\t{{.Name}}\t{{index .Config.Labels "com.docker.compose.service"}}\t{{.State.Status}}\t{{if .State.Health}}{{.State.Health.Status}}{{end}}\t{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}';
    const res = await runCommand(['docker', 'inspect', '--format', format, ...list], { timeoutMs: 60_000 });
    return res.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [id, name, service, state, health, ip] = line.split('\t');
        return { id: id!.slice(0, 12), name: name!.replace(/^\//, ''), service: service!, state: state!, health: health || null, ip: ip?.trim().split(' ')[0] || null };
      });
  }

  /** Volumes and networks the project still owns. */
  async leftovers(): Promise<{ volumes: string[]; networks: string[] }> {
    const filter = `label=com.docker.compose.project=${this.project}`;
    const [volumes, networks] = await Promise.all([
      runCommand(['docker', 'volume', 'ls', '-q', '--filter', filter]),
      runCommand(['docker', 'network', 'ls', '-q', '--filter', filter]),
    ]);
    return { volumes: volumes.stdout.split('\n').filter(Boolean), networks: networks.stdout.split('\n').filter(Boolean) };
  }
}

/** Polls `probe` until it returns a value (not undefined) or the deadline passes; the last error is kept for the message. */
export async function waitUntil<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, pollMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${Math.round(timeoutMs / 1000)} s${last ? ` (last: ${last.slice(0, 300)})` : ''}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
