/** Who may read /metrics: the configured bearer token, or (without one) loopback clients only. */
import { describe, expect, it } from 'vitest';
import { metricsAccess } from '../../services/shared/metrics.js';

describe('metricsAccess', () => {
  it('without a token: loopback only', () => {
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) expect(metricsAccess({ token: undefined, remoteAddress, authorization: undefined })).toBe('allowed');
    for (const remoteAddress of ['10.0.0.7', '::ffff:192.168.1.2', undefined]) expect(metricsAccess({ token: undefined, remoteAddress, authorization: undefined })).toBe('forbidden');
  });

  it('with a token: the right bearer token from anywhere, nothing else (not even loopback)', () => {
    const token = 'scrape-token-0123456789';
    expect(metricsAccess({ token, remoteAddress: '10.0.0.7', authorization: `Bearer ${token}` })).toBe('allowed');
    expect(metricsAccess({ token, remoteAddress: '127.0.0.1', authorization: undefined })).toBe('unauthorized');
    expect(metricsAccess({ token, remoteAddress: '10.0.0.7', authorization: 'Bearer scrape-token-0123456780' })).toBe('unauthorized');
    expect(metricsAccess({ token, remoteAddress: '10.0.0.7', authorization: 'Bearer short' })).toBe('unauthorized');
  });
});
