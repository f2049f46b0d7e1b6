// @vitest-environment jsdom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { tokenStorage } from '../../../lib/token-storage.js';
import { CATEGORIES, TEST_USER, installFakeApi, listResponse, renderApp, setupDom } from '../../../testing/render-app.js';

setupDom();

const AUTH = { access_token: 'A1', refresh_token: 'R1', user: TEST_USER };

function type(label: string | RegExp, value: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
}

function appApi(overrides: Record<string, { status?: number; body?: unknown }> = {}) {
  return installFakeApi((req) => {
    if (overrides[req.path]) return overrides[req.path]!;
    if (req.path === '/api/auth/profile/') return { body: TEST_USER };
    if (req.path === '/api/auctions/categories/') return { body: CATEGORIES };
    if (req.path === '/api/auctions/list/') return { body: listResponse([]) };
    return { status: 404, body: { detail: 'Not found.' } };
  });
}

describe('login', () => {
  it('has email, password with show/hide, Forgot password? and a sign-up link', async () => {
    appApi();
    renderApp('/login');
    const password = (await screen.findByLabelText('Password')) as HTMLInputElement;
    expect(screen.getByLabelText('Email').getAttribute('type')).toBe('email');
    expect(password.type).toBe('password');
    fireEvent.click(screen.getByRole('button', { name: 'Show password' }));
    expect(password.type).toBe('text');
    fireEvent.click(screen.getByRole('button', { name: 'Hide password' }));
    expect(password.type).toBe('password');
    expect(screen.getByRole('link', { name: 'Forgot password?' }).getAttribute('href')).toBe('/forgot-password');
    expect(screen.getByRole('link', { name: 'Sign up' }).getAttribute('href')).toBe('/signup');
  });

  it("signs in ('Signing in...' while busy), toasts, stores the session and returns to the remembered page", async () => {
    const calls = installFakeApi((req) => {
      if (req.path === '/api/auth/login/') return { body: AUTH, delayMs: 50 };
      if (req.path === '/api/auth/profile/') return { body: TEST_USER };
      if (req.path === '/api/auctions/detail/cat-320/') return { status: 404, statusText: 'Not Found', body: { detail: 'Not found.' } };
      return { body: {} };
    });
    const { router } = renderApp('/login', { from: { pathname: '/deal/cat-320', search: '', hash: '' } });
    type(await screen.findByLabelText('Email').then(() => 'Email'), 'dana@example.com');
    type('Password', 'S3cure!pass');
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('button', { name: 'Signing in...' })).toBeTruthy();
    expect(await screen.findByText('Login Successful')).toBeTruthy();
    expect(screen.getByText('Welcome back to Deal Radar!')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/deal/cat-320'));
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/api/auth/login/', body: { email: 'dana@example.com', password: 'S3cure!pass' } });
    expect(tokenStorage.getAccess()).toBe('A1');
    expect(tokenStorage.getRefresh()).toBe('R1');
    expect(tokenStorage.getUser()?.email).toBe('dana@example.com');
  });

  it('goes to /dashboard when nothing was remembered', async () => {
    appApi({ '/api/auth/login/': { body: AUTH } });
    const { router } = renderApp('/login');
    type(await screen.findByLabelText('Email').then(() => 'Email'), 'dana@example.com');
    type('Password', 'whatever1');
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it("toasts 'Login Failed' with the server's message", async () => {
    appApi({ '/api/auth/login/': { status: 400, body: { non_field_errors: ['Unable to log in with provided credentials.'], detail: 'Unable to log in with provided credentials.' } } });
    renderApp('/login');
    type(await screen.findByLabelText('Email').then(() => 'Email'), 'dana@example.com');
    type('Password', 'wrong-password');
    fireEvent.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByText('Login Failed')).toBeTruthy();
    expect(screen.getByText('Unable to log in with provided credentials.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeTruthy();
  });
});

describe('sign-up', () => {
  async function fill(overrides: Record<string, string> = {}) {
    await screen.findByRole('heading', { name: 'Create Account' });
    const values = { 'First Name': 'Dana', 'Last Name': 'Reyes', Email: 'dana@example.com', Password: 'S3cure!pass', 'Confirm Password': 'S3cure!pass', ...overrides };
    for (const [label, value] of Object.entries(values)) type(new RegExp(`^${label}`), value);
  }

  it("refuses different passwords with 'Passwords do not match'", async () => {
    const calls = appApi();
    renderApp('/signup');
    await fill({ 'Confirm Password': 'other-pass' });
    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    expect((await screen.findAllByText('Passwords do not match')).length).toBeGreaterThan(0);
    expect(screen.getByText('Error')).toBeTruthy();
    expect(calls.some((c) => c.path === '/api/auth/register/')).toBe(false);
  });

  it("requires the terms: 'Please accept the terms and conditions'", async () => {
    const calls = appApi();
    renderApp('/signup');
    await fill();
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    expect((await screen.findAllByText('Please accept the terms and conditions')).length).toBeGreaterThan(0);
    expect(calls.some((c) => c.path === '/api/auth/register/')).toBe(false);
  });

  it('registers with the §7 payload (empty optional fields omitted), toasts and goes to /dashboard', async () => {
    const calls = appApi({ '/api/auth/register/': { status: 201, body: AUTH } });
    const { router } = renderApp('/signup');
    await fill();
    type(/^City/, 'Austin');
    expect(screen.getByText('Password strength: Strong')).toBeTruthy();
    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    expect(await screen.findByText('Account Created')).toBeTruthy();
    expect(screen.getByText('Welcome to the product!')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(calls.find((c) => c.path === '/api/auth/register/')?.body).toEqual({
      email: 'dana@example.com',
      password1: 'S3cure!pass',
      password2: 'S3cure!pass',
      first_name: 'Dana',
      last_name: 'Reyes',
      city: 'Austin',
      terms_accepted: true,
    });
  });

  it("shows 'Signup Failed' and the server's field errors", async () => {
    appApi({ '/api/auth/register/': { status: 400, body: { password1: ['This password is too common.'], detail: 'This password is too common.' } } });
    renderApp('/signup');
    await fill({ Password: 'password1', 'Confirm Password': 'password1' });
    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(screen.getByRole('button', { name: 'Create Account' }));
    expect(await screen.findByText('Signup Failed')).toBeTruthy();
    expect(screen.getAllByText('This password is too common.').length).toBe(2);
    expect(screen.getByLabelText('Password').getAttribute('aria-invalid')).toBe('true');
  });
});

describe('forgot password', () => {
  it('sends the link, toasts and clears the field', async () => {
    const calls = appApi({ '/api/auth/password/reset/': { body: { detail: 'Password reset e-mail has been sent.' } } });
    renderApp('/forgot-password');
    type(await screen.findByLabelText('Email').then(() => 'Email'), 'dana@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Send Reset Link' }));
    expect(await screen.findByText('Password Reset Email Sent')).toBeTruthy();
    expect(screen.getByText('Please check your email for password reset instructions.')).toBeTruthy();
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('');
    expect(calls.at(-1)).toMatchObject({ path: '/api/auth/password/reset/', body: { email: 'dana@example.com' } });
    expect(screen.getByRole('link', { name: 'Back to Sign In' }).getAttribute('href')).toBe('/login');
  });

  it("toasts 'Error' with the message on failure", async () => {
    appApi({ '/api/auth/password/reset/': { status: 429, body: { detail: 'Request was throttled. Expected available in 60 seconds.' } } });
    renderApp('/forgot-password');
    type(await screen.findByLabelText('Email').then(() => 'Email'), 'dana@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Send Reset Link' }));
    expect(await screen.findByText('Request was throttled. Expected available in 60 seconds.')).toBeTruthy();
    expect(screen.getAllByText('Error').length).toBeGreaterThan(0);
  });
});

describe('password reset', () => {
  it("an incomplete link toasts 'Invalid Reset Link' and goes to /forgot-password", async () => {
    appApi();
    const { router } = renderApp('/reset/abc');
    expect(await screen.findByText('Invalid Reset Link')).toBeTruthy();
    expect(screen.getByText('This password reset link is invalid or has expired.')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/forgot-password'));
  });

  it('checks match and length on the client', async () => {
    const calls = appApi();
    renderApp('/reset/MQ/tok-123');
    type(await screen.findByLabelText('New Password').then(() => 'New Password'), 'S3cure!pass');
    type('Confirm Password', 'S3cure!pasz');
    expect(screen.getByLabelText('New Password').getAttribute('minlength')).toBe('8');
    fireEvent.submit(screen.getByRole('form', { name: 'Set a new password' }));
    expect((await screen.findAllByText('Passwords do not match')).length).toBeGreaterThan(0);
    type('New Password', 'short');
    type('Confirm Password', 'short');
    fireEvent.submit(screen.getByRole('form', { name: 'Set a new password' }));
    expect((await screen.findAllByText('Password must be at least 8 characters long')).length).toBeGreaterThan(0);
    expect(calls.some((c) => c.path === '/api/auth/password/reset/confirm/')).toBe(false);
  });

  it('resets, shows the success panel and goes to /login after 3 s', async () => {
    const calls = appApi({ '/api/auth/password/reset/confirm/': { body: { detail: 'Password has been reset with the new password.' } } });
    const { router } = renderApp('/reset/MQ/tok-123');
    type(await screen.findByLabelText('New Password').then(() => 'New Password'), 'N3w!password');
    type('Confirm Password', 'N3w!password');
    fireEvent.click(screen.getByRole('button', { name: 'Reset Password' }));
    expect(await screen.findByRole('button', { name: 'Go to Login' })).toBeTruthy();
    expect(screen.getAllByText('Password Reset Successful').length).toBeGreaterThan(0);
    expect(calls.at(-1)?.body).toEqual({ uid: 'MQ', token: 'tok-123', new_password1: 'N3w!password', new_password2: 'N3w!password' });
    const shownAt = Date.now();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'), { timeout: 4500 });
    expect(Date.now() - shownAt).toBeGreaterThanOrEqual(2500);
  });

  it("toasts 'Password Reset Failed' with the server's message", async () => {
    appApi({ '/api/auth/password/reset/confirm/': { status: 400, body: { token: ['Invalid value'], detail: 'Invalid value' } } });
    renderApp('/reset/MQ/bad');
    type(await screen.findByLabelText('New Password').then(() => 'New Password'), 'N3w!password');
    type('Confirm Password', 'N3w!password');
    fireEvent.click(screen.getByRole('button', { name: 'Reset Password' }));
    expect(await screen.findByText('Password Reset Failed')).toBeTruthy();
    expect(screen.getByText('Invalid value')).toBeTruthy();
  });
});
