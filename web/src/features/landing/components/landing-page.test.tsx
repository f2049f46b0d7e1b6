// @vitest-environment jsdom
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TEST_USER, installFakeApi, renderApp, setupDom, signIn } from '../../../testing/render-app.js';

setupDom();

describe('landing page', () => {
  it('signed out: Sign In, Get Started, the hero actions, features, figures, steps, trial and footer', async () => {
    installFakeApi(() => ({ body: {} }));
    renderApp('/');
    expect(await screen.findByRole('link', { name: 'Get Started' })).toBeTruthy();
    const href = (name: string) => screen.getByRole('link', { name }).getAttribute('href');
    expect(href('Sign In')).toBe('/login');
    expect(href('Get Started')).toBe('/signup');
    expect(href('Start Finding Deals')).toBe('/signup');
    expect(href('View Demo Dashboard')).toBe('/dashboard');
    expect(href('Start Free Trial')).toBe('/signup');
    for (const text of ['AI Deal Detection', 'Real-Time Alerts', 'Price History Analysis', 'Smart Filtering', '50K+', '$2.3M+', '1,200+', '23%', 'Set Your Criteria', 'We Monitor & Analyze', 'Get Instant Alerts', 'Help Center', 'Contact Us', 'Privacy Policy', 'Terms of Service']) {
      expect(screen.getAllByText(text).length, text).toBeGreaterThan(0);
    }
    expect(screen.getByText(/Get an email or SMS/)).toBeTruthy();
    expect(screen.getAllByText(/equipment type, location, condition and price range/).length).toBeGreaterThan(0);
    expect(screen.getAllByText(/14-day free trial/i).length).toBeGreaterThan(0);
    expect(screen.getAllByText(/No credit card required/i).length).toBeGreaterThan(0);
    const footer = screen.getByRole('contentinfo');
    for (const name of ['Dashboard', 'Alerts', 'Account']) expect(footer.querySelector(`a[href="/${name.toLowerCase()}"]`)?.textContent).toBe(name);
  });

  it('signed in: greeting with first name, Dashboard, Sign Out, Go to Dashboard and Manage Alerts; no trial call to action', async () => {
    signIn();
    installFakeApi(() => ({ body: TEST_USER }));
    renderApp('/');
    expect(await screen.findByText('Welcome, Dana')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Go to Dashboard' }).getAttribute('href')).toBe('/dashboard');
    expect(screen.getByRole('link', { name: 'Manage Alerts' }).getAttribute('href')).toBe('/alerts');
    expect(screen.getByRole('button', { name: 'Sign Out' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Start Free Trial' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Get Started' })).toBeNull();
  });

  it("falls back to 'User' without a first name", async () => {
    signIn({ ...TEST_USER, first_name: '' });
    installFakeApi(() => ({ body: { ...TEST_USER, first_name: '' } }));
    renderApp('/');
    expect(await screen.findByText('Welcome, User')).toBeTruthy();
  });

  it('shows a spinner while the session loads', async () => {
    signIn();
    installFakeApi(() => 'pending');
    renderApp('/');
    expect(await screen.findByRole('status')).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Get Started' })).toBeNull();
  });
});
