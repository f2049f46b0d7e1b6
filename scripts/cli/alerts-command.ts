import { entitlementsOf } from '../../services/billing/billing-service.js';
import { activeAlertCountsByUser, notificationCountsSince } from '../../services/shared/repositories/alerts-repository.js';
import { parseArgs, type CliCommand, type FlagSpec } from './command.js';

const FLAGS: Record<string, FlagSpec> = { json: { kind: 'boolean', help: 'print JSON instead of tables' } };
import { textTable } from './table.js';

/**
 * `npm run cli -- alerts`: active alerts by plan and frequency, and the last 24 hours'
 * notifications by status — is matching finding lots, and is delivery keeping up (many `queued`
 * or `pending` instant ones mean the notifier is behind; `failed` ones say why in `outbox`).
 */
export const alertsCommand: CliCommand = {
  name: 'alerts',
  summary: 'Count active alerts by plan and frequency, and the last 24 h of notifications by status',
  usage: '[--json]',
  flags: FLAGS,
  async run(ctx, args) {
    const json = parseArgs(args, FLAGS).flags.json === true;
    const perUser = await activeAlertCountsByUser(ctx.database.db);
    // The plan is billing's rule (grace periods, cancellations): asked only for users with a subscription record.
    const plans = new Map<number, string>();
    for (const userId of new Set(perUser.filter((r) => r.hasSubscription).map((r) => r.userId))) {
      plans.set(userId, (await entitlementsOf(ctx.database.db, userId)).plan);
    }
    const byPlan = new Map<string, { plan: string; frequency: string; alerts: number; users: Set<number> }>();
    for (const row of perUser) {
      const plan = plans.get(row.userId) ?? 'free';
      const key = `${plan}/${row.frequency}`;
      const entry = byPlan.get(key) ?? { plan, frequency: row.frequency, alerts: 0, users: new Set<number>() };
      entry.alerts += row.alerts;
      entry.users.add(row.userId);
      byPlan.set(key, entry);
    }
    const alerts = [...byPlan.values()].sort((a, b) => (a.plan + a.frequency).localeCompare(b.plan + b.frequency));
    const notifications = await notificationCountsSince(ctx.database.db, new Date(Date.now() - 24 * 3600_000));
    if (json) {
      const record = {
        alerts: alerts.map((e) => ({ plan: e.plan, frequency: e.frequency, alerts: e.alerts, users: e.users.size })),
        notificationsLast24h: notifications.map((n) => ({ status: n.status, frequency: n.frequency, count: n.count })),
      };
      process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      [
        'Active alerts',
        ...textTable(['plan', 'frequency', 'alerts', 'users'], alerts.map((e) => [e.plan, e.frequency, e.alerts, e.users.size])),
        '',
        'Notifications created in the last 24 h',
        ...textTable(['status', 'frequency', 'notifications'], notifications.map((n) => [n.status, n.frequency, n.count])),
        '',
      ].join('\n'),
    );
  },
};
