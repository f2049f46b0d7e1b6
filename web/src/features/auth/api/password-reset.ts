import { apiRequest } from '../../../lib/api-client.js';

export function requestPasswordReset(email: string): Promise<unknown> {
  return apiRequest('/api/auth/password/reset/', { method: 'POST', body: { email: email.trim() }, auth: false });
}

export function confirmPasswordReset(input: { uid: string; token: string; password: string; confirmPassword: string }): Promise<unknown> {
  return apiRequest('/api/auth/password/reset/confirm/', {
    method: 'POST',
    body: { uid: input.uid, token: input.token, new_password1: input.password, new_password2: input.confirmPassword },
    auth: false,
  });
}
