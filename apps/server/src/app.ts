import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { createMailer, type MailDelivery } from './lib/mail.ts';
import { requestLogEntry } from './lib/log-redaction.ts';
import { activityRoutes } from './modules/activity/activity.routes.ts';
import { appsRoutes } from './modules/apps/apps.routes.ts';
import { loadAppCatalog } from './modules/apps/catalog.ts';
import { groupsRoutes } from './modules/groups/groups.routes.ts';
import { registerIdentity } from './modules/auth/identity.plugin.ts';
import { domainsRoutes } from './modules/domains/domains.routes.ts';
import { registerDav } from './modules/dav/dav.plugin.ts';
import { registerDevices } from './modules/devices/devices.plugin.ts';
import { mtaStsRoutes } from './modules/mta-sts/mta-sts.routes.ts';
import { registerDnsUpdateJobs } from './modules/dns-updates/dns-update.job.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { databaseDumpRoutes } from './modules/operator/database-dump.routes.ts';
import { operatorStatusRoutes } from './modules/operator/operator-status.routes.ts';
import { BackgroundWork } from './lib/background-work.ts';
import { JobWorker } from './modules/jobs/job-worker.ts';
import { wakeWorkerAfterQueueing } from './modules/jobs/queued-in-request.ts';
import { invitationsRoutes } from './modules/invitations/invitations.routes.ts';
import { usersRoutes } from './modules/users/users.routes.ts';
import { registerMail } from './modules/mail/mail.plugin.ts';
import { registerMailProtection } from './modules/mail-protection/mail-protection.plugin.ts';
import { registerWebmail } from './modules/webmail/webmail.plugin.ts';
import { migrationRoutes } from './modules/migration/migration.routes.ts';
import type { MigrationDeps } from './modules/migration/user-import.service.ts';
import type { MailMigrationDeps } from './modules/migration/mail-migration.service.ts';
import { takeoutRoutes } from './modules/takeout/takeout.routes.ts';
import { searchRoutes } from './modules/search/search.routes.ts';
import { notificationsRoutes } from './modules/notifications/notifications.routes.ts';
import { dashboardRoutes } from './modules/dashboard/dashboard.routes.ts';
import { organizationProfileRoutes } from './modules/organizations/organization-profile.routes.ts';
import { setupRoutes } from './modules/setup/setup.routes.ts';
import { signupRoutes } from './modules/signup/signup.routes.ts';
import { registerCancelledGuard } from './modules/subscriptions/cancelled-guard.ts';
import { planCatalogOf } from './modules/subscriptions/plan-catalog.ts';
import { registerSubscriptionWebhookJob } from './modules/subscriptions/subscription-webhook.ts';
import { registerTrialEndJob } from './modules/subscriptions/trial-end.ts';
import { subscriptionsRoutes } from './modules/subscriptions/subscriptions.routes.ts';
import { registerAuthGuard } from './plugins/auth-guard.ts';
import { registerConsole } from './plugins/console-static.ts';
import { registerErrorHandler } from './plugins/error-handler.ts';
import { registerHandover } from './plugins/handover.ts';
import { registerInputGuard } from './plugins/input-guard.ts';
import { registerOpenApi } from './plugins/openapi.ts';
import { registerSecurity } from './plugins/security.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The job queue's worker of this process (tests wake or drain it). */
    jobs: JobWorker;
    /** What requests started after answering (tests wait for it to be idle). */
    background: BackgroundWork;
  }
}

export interface AppDeps {
  db: Db;
  /**
   * Scheduled background work (domain re-checks, purges) runs in the server process, not in most
   * tests. The job queue's worker runs in every app, tests included: mail is sent only by it.
   */
  runJobs?: boolean;
  /** Tests: the CSV import's batch size and a hook after each committed batch. */
  migration?: Pick<MigrationDeps, 'importBatchSize' | 'afterImportBatch'> &
    Pick<MailMigrationDeps, 'afterMailProgress'>;
  /** Delivers mail instead of SMTP or the outbox (benchmarks); messages still go through the queue. */
  deliverMail?: MailDelivery;
}

/** Builds the whole server: API, identity provider and console. Used by main and by tests. */
export async function buildApp(config: Config, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: ['req.headers.cookie', 'req.headers.authorization'],
      serializers: { req: requestLogEntry },
    },
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Caddy reuses an idle connection to Atrium for up to 2 minutes: with Node's 5 s default, Atrium
    // closed some just as Caddy sent a request on them, and the client got a 502 (issue 43's burst
    // of phones saw 0.1-0.3% of requests so). Idle connections are closed at shutdown all the same.
    keepAliveTimeout: 125_000,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  registerHandover(app);

  const { db } = deps;
  // Operator files: a bad one stops start-up here, naming the file and the field.
  const appCatalog = loadAppCatalog(config.appCatalog);
  planCatalogOf(config);
  // Several processes may share the database: each runs a worker, and the queue's row locks
  // keep them from taking the same job.
  const jobs = new JobWorker(db, app.log.child({ module: 'jobs' }));
  app.decorate('jobs', jobs);
  const background = new BackgroundWork();
  app.decorate('background', background);
  // Sign-out, suspending, group and app changes, e-mails… queue jobs in their transactions; once
  // the answer is sent (committed), the worker looks at once instead of at its next poll.
  wakeWorkerAfterQueueing(app, jobs);
  const mailer = createMailer(config, db, app.log, jobs, deps.deliverMail);
  registerDnsUpdateJobs(jobs, { db, config, log: app.log.child({ module: 'dns-updates' }) });
  registerSubscriptionWebhookJob(jobs, { db, config, log: app.log.child({ module: 'subscriptions' }) });
  registerTrialEndJob(jobs, { db, config });

  registerErrorHandler(app);
  await app.register(cookie);
  await registerSecurity(app, config);
  registerAuthGuard(app, db);
  registerCancelledGuard(app, db);
  registerInputGuard(app);
  await registerOpenApi(app);

  await app.register(healthRoutes(db));
  await app.register(operatorStatusRoutes({ db, config }));
  await app.register(databaseDumpRoutes({ db, config }));
  await app.register(domainsRoutes({ db, config, runJobs: deps.runJobs ?? false }));
  const provider = await registerIdentity(app, { db, config, mailer, runJobs: deps.runJobs ?? false });
  await app.register(usersRoutes({ db, mailer, config, jobs }));
  await app.register(groupsRoutes({ db }));
  await app.register(invitationsRoutes({ db, config, mailer }));
  await app.register(appsRoutes({ db, config, catalog: appCatalog }));
  await app.register(notificationsRoutes({ db }));
  await app.register(activityRoutes({ db }));
  await app.register(signupRoutes({ db, config, mailer, log: app.log.child({ module: 'signup' }) }));
  await app.register(setupRoutes({ db }));
  await app.register(organizationProfileRoutes({ db, config }));
  await app.register(dashboardRoutes({ db, config }));
  await app.register(subscriptionsRoutes({ db, config, jobs }));
  await app.register(searchRoutes({ db }));
  await app.register(migrationRoutes({ db, config, mailer, jobs, ...deps.migration }));
  await app.register(takeoutRoutes({ db, config, jobs }));
  await registerMail(app, { db, config });
  await registerMailProtection(app, { db, config });
  registerWebmail(app, { db, config, catalog: appCatalog });
  await registerDevices(app, { db, config });
  await app.register(mtaStsRoutes({ db, config }));
  await registerDav(app, { db, config, provider });

  await registerConsole(app, config.consoleDir);
  // Handlers are all registered by now; on close (SIGTERM in main), jobs in progress finish first.
  app.addHook('onReady', async () => jobs.start());
  app.addHook('onClose', async () => {
    await background.idle();
    await jobs.stop();
  });
  return app;
}
