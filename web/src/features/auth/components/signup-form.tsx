import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { toast } from 'sonner';
import { Button } from '../../../components/ui/button.js';
import { Checkbox } from '../../../components/ui/checkbox.js';
import { Field, Label, PasswordField } from '../../../components/ui/form.js';
import { ApiError } from '../../../lib/api-client.js';
import { useAuth, type RegisterInput } from '../../../lib/auth.js';
import { PasswordStrengthMeter } from '../../../components/password-strength-meter.js';

type FieldName = Exclude<keyof RegisterInput, 'termsAccepted'> | 'termsAccepted';

/** The server's field names (§7) mapped to the form's (§3). */
const SERVER_FIELDS: Record<string, FieldName> = {
  email: 'email',
  password1: 'password',
  password2: 'confirmPassword',
  first_name: 'firstName',
  last_name: 'lastName',
  phone: 'phone',
  city: 'city',
  address: 'address',
  terms_accepted: 'termsAccepted',
};

const EMPTY: RegisterInput = {
  firstName: '',
  lastName: '',
  email: '',
  password: '',
  confirmPassword: '',
  phone: '',
  city: '',
  address: '',
  termsAccepted: false,
};

export function SignupForm() {
  const { register } = useAuth();
  const navigate = useNavigate();
  const [form, setForm] = useState<RegisterInput>(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [busy, setBusy] = useState(false);

  const set = (name: keyof RegisterInput) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [name]: e.target.value }));

  function clientError(field: FieldName, message: string) {
    setErrors({ [field]: message });
    toast.error('Error', { description: message });
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (form.password !== form.confirmPassword) return clientError('confirmPassword', 'Passwords do not match');
    if (!form.termsAccepted) return clientError('termsAccepted', 'Please accept the terms and conditions');
    setErrors({});
    setBusy(true);
    try {
      await register(form);
      toast.success('Account Created', { description: 'Welcome to the product!' });
      navigate('/dashboard', { replace: true });
    } catch (error) {
      if (error instanceof ApiError) {
        const fieldErrors: Partial<Record<FieldName, string>> = {};
        for (const [key, message] of Object.entries(error.fieldErrors)) {
          const field = SERVER_FIELDS[key];
          if (field) fieldErrors[field] = message;
        }
        setErrors(fieldErrors);
      }
      toast.error('Signup Failed', { description: (error instanceof Error && error.message) || 'An error occurred during signup' });
      setBusy(false);
    }
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-label="Create account" noValidate={false}>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="First Name" name="firstName" autoComplete="given-name" required value={form.firstName} onChange={set('firstName')} error={errors.firstName} />
        <Field label="Last Name" name="lastName" autoComplete="family-name" required value={form.lastName} onChange={set('lastName')} error={errors.lastName} />
      </div>
      <Field label="Email" type="email" name="email" autoComplete="email" required value={form.email} onChange={set('email')} error={errors.email} />
      <PasswordField
        label="Password"
        name="password"
        autoComplete="new-password"
        required
        value={form.password}
        onChange={set('password')}
        error={errors.password}
        hint={<PasswordStrengthMeter password={form.password} />}
      />
      <PasswordField label="Confirm Password" name="confirmPassword" autoComplete="new-password" required value={form.confirmPassword} onChange={set('confirmPassword')} error={errors.confirmPassword} />
      <Field label="Phone" type="tel" name="phone" autoComplete="tel" optional value={form.phone} onChange={set('phone')} error={errors.phone} />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="City" name="city" autoComplete="address-level2" optional value={form.city} onChange={set('city')} error={errors.city} />
        <Field label="Address" name="address" autoComplete="street-address" optional value={form.address} onChange={set('address')} error={errors.address} />
      </div>
      <div className="space-y-1">
        <div className="flex items-start gap-2">
          <Checkbox
            id="terms"
            checked={form.termsAccepted}
            onCheckedChange={(checked) => setForm((f) => ({ ...f, termsAccepted: checked === true }))}
            aria-invalid={errors.termsAccepted ? true : undefined}
            aria-describedby={errors.termsAccepted ? 'terms-error' : undefined}
          />
          <Label htmlFor="terms" className="font-normal">
            I agree to the Terms of Service and Privacy Policy
          </Label>
        </div>
        {errors.termsAccepted && (
          <p id="terms-error" className="text-sm text-red-700">
            {errors.termsAccepted}
          </p>
        )}
      </div>
      <Button type="submit" className="w-full" disabled={busy}>
        {busy ? 'Creating account...' : 'Create Account'}
      </Button>
      <p className="text-center text-sm text-slate-700">
        Already have an account?{' '}
        <Link to="/login" className="font-medium text-brand-600 hover:underline">
          Sign in
        </Link>
      </p>
    </form>
  );
}
