import {
  MAIL_MIGRATION_MAX_ROWS,
  SOURCE_TLS_LABELS,
  sourceTlsSchema,
  startMailMigrationSchema,
} from '@atrium/contracts/mail-migration';
import { zodResolver } from '@hookform/resolvers/zod';
import { Mail, Upload } from 'lucide-react';
import { useId, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm, type FieldPath } from 'react-hook-form';
import type { z } from 'zod';
import { ApiError } from '../../../lib/api-client.ts';
import { useStartMailMigration, useStartMailMigrationsFromCsv } from '../api/mail-migration.ts';

type Input = z.input<typeof startMailMigrationSchema>;
type Output = z.output<typeof startMailMigrationSchema>;

const DEFAULT_PORTS: Record<string, number> = { tls: 993, starttls: 143, none: 143 };

/** One mailbox from a form; many from a CSV file. Each mailbox is a job in the list below. */
export function MailMigrationCard() {
  const start = useStartMailMigration();
  const fromCsv = useStartMailMigrationsFromCsv();
  const [failure, setFailure] = useState<string | null>(null);
  const [started, setStarted] = useState<string | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const fileId = useId();
  const csvHelpId = useId();
  const form = useForm<Input, unknown, Output>({
    resolver: zodResolver(startMailMigrationSchema),
    defaultValues: { email: '', host: '', port: 993, tls: 'tls', login: '', password: '' },
  });
  const { register, handleSubmit, setError, setValue, getValues, reset, formState } = form;
  const { errors, isSubmitting } = formState;

  const submit = handleSubmit(async (values) => {
    setFailure(null);
    setStarted(null);
    try {
      const job = await start.mutateAsync(values);
      reset();
      setStarted(`The migration into ${job.email} started. Its progress shows below.`);
    } catch (error) {
      if (error instanceof ApiError && error.fields && Object.keys(error.fields).length > 0) {
        for (const [field, message] of Object.entries(error.fields)) {
          setError(field as FieldPath<Input>, { message }, { shouldFocus: true });
        }
      } else setFailure(error instanceof Error ? error.message : String(error));
    }
  });

  return (
    <div className="card atrium-card mb-4">
      <div className="card-body">
        <h2 className="h5 mb-1">Mail from your old provider</h2>
        <p className="text-body-secondary">
          Atrium signs in to the old provider’s IMAP server and copies every folder and message into the
          user’s mailbox, with read and flagged marks and dates. Run it again later to copy only what is new.
          The password is used for the run only and never kept.
        </p>
        <Form noValidate onSubmit={submit} aria-label="Migrate one mailbox">
          {failure ? (
            <Alert variant="danger" onClose={() => setFailure(null)} dismissible>
              <Alert.Heading as="h3" className="h6">
                The migration did not start
              </Alert.Heading>
              <p className="mb-0">{failure}</p>
            </Alert>
          ) : null}
          {started ? (
            <Alert variant="success" onClose={() => setStarted(null)} dismissible>
              {started}
            </Alert>
          ) : null}
          <div className="row g-3 mb-3">
            <Form.Group className="col-md-6" controlId="mail-migration-email">
              <Form.Label>Atrium address</Form.Label>
              <Form.Control
                type="email"
                autoComplete="off"
                {...register('email')}
                isInvalid={!!errors.email}
              />
              <Form.Control.Feedback type="invalid">{errors.email?.message}</Form.Control.Feedback>
            </Form.Group>
            <Form.Group className="col-md-6" controlId="mail-migration-host">
              <Form.Label>Old provider’s IMAP server</Form.Label>
              <Form.Control
                autoComplete="off"
                placeholder="imap.example.com"
                {...register('host')}
                isInvalid={!!errors.host}
              />
              <Form.Control.Feedback type="invalid">{errors.host?.message}</Form.Control.Feedback>
            </Form.Group>
            <Form.Group className="col-sm-6 col-md-3" controlId="mail-migration-tls">
              <Form.Label>Security</Form.Label>
              <Form.Select
                {...register('tls', {
                  onChange: (event: React.ChangeEvent<HTMLSelectElement>) => {
                    // Follow the usual port unless the admin typed another.
                    if (Object.values(DEFAULT_PORTS).includes(Number(getValues('port')))) {
                      setValue('port', DEFAULT_PORTS[event.target.value] ?? 993);
                    }
                  },
                })}
              >
                {sourceTlsSchema.options.map((tls) => (
                  <option key={tls} value={tls}>
                    {SOURCE_TLS_LABELS[tls]}
                  </option>
                ))}
              </Form.Select>
            </Form.Group>
            <Form.Group className="col-sm-6 col-md-3" controlId="mail-migration-port">
              <Form.Label>Port</Form.Label>
              <Form.Control
                type="number"
                min={1}
                max={65535}
                {...register('port')}
                isInvalid={!!errors.port}
              />
              <Form.Control.Feedback type="invalid">{errors.port?.message}</Form.Control.Feedback>
            </Form.Group>
            <Form.Group className="col-md-6" controlId="mail-migration-login">
              <Form.Label>Login at the old provider</Form.Label>
              <Form.Control autoComplete="off" {...register('login')} isInvalid={!!errors.login} />
              <Form.Control.Feedback type="invalid">{errors.login?.message}</Form.Control.Feedback>
            </Form.Group>
            <Form.Group className="col-md-6" controlId="mail-migration-password">
              <Form.Label>Password or app password</Form.Label>
              <Form.Control
                type="password"
                autoComplete="new-password"
                {...register('password')}
                isInvalid={!!errors.password}
              />
              <Form.Control.Feedback type="invalid">{errors.password?.message}</Form.Control.Feedback>
            </Form.Group>
          </div>
          <Button type="submit" className="d-inline-flex align-items-center gap-2" disabled={isSubmitting}>
            <Mail size={18} aria-hidden="true" />
            {isSubmitting ? 'Starting…' : 'Migrate this mailbox'}
          </Button>
        </Form>

        <hr className="my-4" />
        <h3 className="h6 mb-1">Many mailboxes from a CSV file</h3>
        <p className="text-body-secondary small" id={csvHelpId}>
          One row per mailbox, up to {MAIL_MIGRATION_MAX_ROWS.toLocaleString('en')}, with the columns Email
          (the Atrium address), Host, Port, TLS (tls, starttls or none), Login and Password. Every row must be
          right before any migration starts.
        </p>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            if (!file) return;
            fromCsv.mutate(file, {
              onSuccess: () => {
                setFile(null);
                setInputKey((k) => k + 1);
              },
            });
          }}
        >
          <Form.Group controlId={fileId} className="mb-3">
            <Form.Label>List of mailboxes (CSV)</Form.Label>
            <Form.Control
              key={inputKey}
              type="file"
              accept=".csv,text/csv"
              aria-describedby={csvHelpId}
              onChange={(event) => {
                setFile((event.target as HTMLInputElement).files?.[0] ?? null);
                fromCsv.reset();
              }}
            />
          </Form.Group>
          <Button
            type="submit"
            variant="outline-primary"
            className="d-inline-flex align-items-center gap-2"
            disabled={!file || fromCsv.isPending}
          >
            <Upload size={18} aria-hidden="true" />
            {fromCsv.isPending ? 'Starting…' : 'Migrate the mailboxes'}
          </Button>
        </Form>
        {fromCsv.error ? (
          <Alert variant="danger" className="mt-3 mb-0">
            <Alert.Heading as="h4" className="h6">
              The file was not accepted
            </Alert.Heading>
            <p className="mb-0">{fromCsv.error.message}</p>
          </Alert>
        ) : null}
        {fromCsv.isSuccess ? (
          <Alert variant="success" className="mt-3 mb-0">
            {fromCsv.data.jobs.length.toLocaleString('en')} mailbox migrations started. Their progress shows
            below.
          </Alert>
        ) : null}
      </div>
    </div>
  );
}
