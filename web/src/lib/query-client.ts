import { QueryClient } from '@tanstack/react-query';
import { QUERY_GC_TIME_MS, QUERY_RETRIES, QUERY_RETRY_BASE_MS, QUERY_RETRY_MAX_MS } from '../config/constants.js';
import { ApiError } from './api-client.js';

/** 1 s, 2 s, 4 s … capped at 30 s. */
export function retryDelay(attemptIndex: number): number {
  return Math.min(QUERY_RETRY_BASE_MS * 2 ** attemptIndex, QUERY_RETRY_MAX_MS);
}

/** Up to 3 retries, but none for answers a retry cannot change (a 4xx other than 408/429). */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= QUERY_RETRIES) return false;
  if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429) {
    return false;
  }
  return true;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, retryDelay, gcTime: QUERY_GC_TIME_MS, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
