import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { Badge } from '../../../components/ui/badge.js';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { Spinner } from '../../../components/ui/spinner.js';
import { suppressionReasonText, suppressionsApi } from '../api/suppressions-api.js';

const date = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium' });

/**
 * Where alerts are delivered (issue #22): an address that bounced or reported spam gets no more
 * alert mail until its owner re-enables it here; a number that replied STOP or whose SMS failed
 * is shown too (STOP is undone by texting START, as carriers require).
 */
export function DeliveryCard() {
  const client = useQueryClient();
  const status = useQuery({ queryKey: ['alerts', 'suppressions'], queryFn: suppressionsApi.status });
  const reenable = useMutation({
    mutationFn: suppressionsApi.reenableEmail,
    onSuccess: (data) => {
      client.setQueryData(['alerts', 'suppressions'], data);
      toast.success('E-mail alerts re-enabled');
    },
    onError: (err: Error) => toast.error('Error', { description: err.message }),
  });
  const data = status.data;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Alert Delivery</CardTitle>
        <p className="text-sm text-slate-700">Addresses we stopped sending to</p>
      </CardHeader>
      <CardContent>
        {status.isPending ? (
          <Spinner label="Loading delivery status..." showLabel />
        ) : status.isError || !data ? (
          <p role="alert" className="text-sm text-slate-800">
            Delivery status could not be loaded: {status.error?.message}
          </p>
        ) : (
          <ul className="space-y-3 text-sm">
            <li className="flex flex-wrap items-center justify-between gap-2">
              <div>
                <span className="font-medium text-slate-900">{data.email.address}</span>{' '}
                {data.email.suppressed ? (
                  <Badge tone="danger">Suppressed</Badge>
                ) : (
                  <Badge tone="success">Receiving alerts</Badge>
                )}
                {data.email.suppressed && (
                  <p className="text-slate-700">
                    Suppressed{data.email.since ? ` since ${date.format(new Date(data.email.since))}` : ''}: {suppressionReasonText(data.email.reason)}.
                  </p>
                )}
              </div>
              {data.email.suppressed && (
                <Button variant="secondary" disabled={reenable.isPending} onClick={() => reenable.mutate()}>
                  Re-enable e-mail alerts
                </Button>
              )}
            </li>
            {data.sms.phone && (
              <li>
                <span className="font-medium text-slate-900">{data.sms.phone}</span>{' '}
                {data.sms.opted_out ? <Badge tone="danger">Replied STOP</Badge> : <Badge tone="success">Receiving SMS</Badge>}
                {data.sms.opted_out && <p className="text-slate-700">Text START to the alerts number to receive SMS alerts again.</p>}
                {data.sms.last_failure && <p className="text-slate-700">Last failed SMS: {data.sms.last_failure}.</p>}
              </li>
            )}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
