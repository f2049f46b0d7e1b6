import { AuthLayout } from '../../features/auth/components/auth-layout.js';
import { SignupForm } from '../../features/auth/components/signup-form.js';

export default function SignupRoute() {
  return (
    <AuthLayout title="Create Account" subtitle="Start finding underpriced equipment today">
      <title>Create Account — Deal Radar</title>
      <SignupForm />
    </AuthLayout>
  );
}
