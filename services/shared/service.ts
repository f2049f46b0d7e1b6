import type { AppContext } from './context.js';

/** A running service: started from a context, stopped gracefully. */
export type ServiceHandle = {
  name: string;
  stop(): Promise<void>;
};

export type ServiceStarter = (ctx: AppContext) => Promise<ServiceHandle>;
