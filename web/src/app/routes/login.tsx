import { Link } from 'react-router-dom';
import { AuthLayout } from '../../features/auth/components/auth-layout.js';
import { LoginForm } from '../../features/auth/components/login-form.js';

export default function LoginRoute() {
  return (
    <AuthLayout
      title="Sign In"
      subtitle="Welcome back to Deal Radar"
      footer={
        <>
          Don&apos;t have an account?{' '}
          <Link to="/signup" className="font-medium text-brand-600 hover:underline">
            Sign up
          </Link>
        </>
      }
    >
      <title>Sign In — Deal Radar</title>
      <LoginForm />
    </AuthLayout>
  );
}
