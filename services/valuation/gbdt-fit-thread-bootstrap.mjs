// A worker thread does not inherit the parent's TypeScript loader in every runtime (vitest forks,
// plain node): register tsx here, then run the TypeScript helper thread.
import { register } from 'tsx/esm/api';

register();
await import('./gbdt-fit-thread.ts');
