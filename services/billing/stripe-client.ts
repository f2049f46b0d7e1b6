import Stripe from 'stripe';
import type { Config } from '../shared/config.js';

/** The official SDK from configuration, or null when billing is not configured. */
export function createStripe(config: Config): Stripe | null {
  if (!config.STRIPE_SECRET_KEY) return null;
  const options: Stripe.StripeConfig = { maxNetworkRetries: 2, telemetry: false, timeout: 15_000 };
  if (config.STRIPE_API_BASE_URL) {
    // Tests (and stripe-mock users) point the SDK at another host.
    const url = new URL(config.STRIPE_API_BASE_URL);
    options.host = url.hostname;
    options.port = Number(url.port || (url.protocol === 'http:' ? 80 : 443));
    options.protocol = url.protocol === 'http:' ? 'http' : 'https';
    options.maxNetworkRetries = 0;
  }
  return new Stripe(config.STRIPE_SECRET_KEY, options);
}
