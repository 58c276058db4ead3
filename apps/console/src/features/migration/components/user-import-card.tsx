import {
  IMPORT_MAX_BYTES,
  IMPORT_MAX_ROWS,
  USER_IMPORT_FORMAT_LABELS,
  type DryRun,
} from '@atrium/contracts/migration';
import { FileUp } from 'lucide-react';
import { useId, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import Spinner from 'react-bootstrap/Spinner';
import { useDryRun, useStartImport } from '../api/migration.ts';

const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

function DryRunResult({ result }: { result: DryRun }) {
  const { counts } = result;
  // Rows beyond the free seats are counted in Errors but said once, above the other errors.
  const otherErrors = counts.errors - (result.seats?.moreNeeded ?? 0);
  const items = [
    { label: 'To create', value: counts.create, tone: 'text-success' },
    { label: 'To update', value: counts.update, tone: 'text-primary' },
    { label: 'Unchanged', value: counts.unchanged, tone: 'text-body-secondary' },
    { label: 'Errors', value: counts.errors, tone: counts.errors ? 'text-danger' : 'text-body-secondary' },
  ];
  return (
    <section aria-labelledby="dry-run-heading" className="mt-4" data-testid="dry-run">
      <h3 id="dry-run-heading" className="h6">
        Dry run: {plural(result.totalRows, 'row')} read as {USER_IMPORT_FORMAT_LABELS[result.format]}
      </h3>
      <ul className="row row-cols-2 row-cols-md-4 g-2 mb-3 list-unstyled" aria-label="Dry run counts">
        {items.map((item) => (
          <li key={item.label} className="col">
            <div className="border rounded p-2 h-100">
              <span className="d-block small text-body-secondary">{item.label}</span>
              <span className={`d-block h4 mb-0 ${item.tone}`}>{item.value.toLocaleString('en')}</span>
            </div>
          </li>
        ))}
      </ul>
      {result.seats ? (
        <Alert variant="warning" data-testid="dry-run-seats">
          <Alert.Heading as="h4" className="h6">
            You need {plural(result.seats.moreNeeded, 'more seat', 'more seats')}
          </Alert.Heading>
          <p className="mb-0">{result.seats.message}</p>
        </Alert>
      ) : null}
      {result.errors.length > 0 ? (
        <>
          <p className="mb-2">
            {result.seats ? 'Rows with other errors' : 'Rows with errors'} are skipped by the import. Fix them
            in the file and check it again, or import the other rows now.
          </p>
          <div className="table-responsive" tabIndex={0} role="region" aria-label="Rows with errors">
            <table className="table table-sm align-middle mb-0">
              <caption className="visually-hidden">Rows with errors</caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">E-mail</th>
                  <th scope="col">Problem</th>
                </tr>
              </thead>
              <tbody>
                {result.errors.map((error) => (
                  <tr key={error.row}>
                    <td>{error.row}</td>
                    <td className="text-break">{error.email || '—'}</td>
                    <td>{error.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {otherErrors > result.errors.length ? (
            <p className="small text-body-secondary mt-2 mb-0">
              The first {result.errors.length.toLocaleString('en')} of {otherErrors.toLocaleString('en')}{' '}
              errors are shown; the result file of an import lists every row.
            </p>
          ) : null}
        </>
      ) : result.seats ? null : (
        <p className="mb-0 text-success">No errors: every row can be imported.</p>
      )}
    </section>
  );
}

/** Upload, dry run, then import: the import runs as a job listed below. */
export function UserImportCard() {
  const inputId = useId();
  const helpId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [inputKey, setInputKey] = useState(0);
  const dryRun = useDryRun();
  const start = useStartImport();
  const result = dryRun.data && dryRun.variables === file ? dryRun.data : undefined;
  const importable = result ? result.counts.create + result.counts.update : 0;

  return (
    <div className="card atrium-card mb-4">
      <div className="card-body">
        <h2 className="h5 mb-1">Users from a CSV file</h2>
        <p className="text-body-secondary" id={helpId}>
          Atrium’s own users export, or the user export of Google Workspace or Microsoft 365 (UTF-8, comma or
          semicolon separated, up to {IMPORT_MAX_ROWS.toLocaleString('en')} rows and{' '}
          {IMPORT_MAX_BYTES / 1024 / 1024} MB). Add a Groups column (several groups separated by semicolons),
          a Password column or a Send invitation column (yes) as you need. Check the file first: nothing is
          changed until you import it.
        </p>
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            if (file) dryRun.mutate(file);
          }}
        >
          <Form.Group controlId={inputId} className="mb-3">
            <Form.Label>CSV file</Form.Label>
            <Form.Control
              key={inputKey}
              type="file"
              accept=".csv,text/csv"
              aria-describedby={helpId}
              onChange={(event) => {
                const chosen = (event.target as HTMLInputElement).files?.[0] ?? null;
                setFile(chosen);
                dryRun.reset();
                start.reset();
              }}
            />
          </Form.Group>
          <div className="d-flex flex-wrap gap-2">
            <Button
              type="submit"
              variant={result ? 'outline-secondary' : 'primary'}
              disabled={!file || dryRun.isPending}
            >
              {dryRun.isPending ? (
                <>
                  <Spinner animation="border" size="sm" className="me-2" aria-hidden="true" />
                  Checking…
                </>
              ) : result ? (
                'Check again'
              ) : (
                'Check the file'
              )}
            </Button>
            {result ? (
              <Button
                variant="primary"
                className="d-inline-flex align-items-center gap-2"
                disabled={importable === 0 || start.isPending}
                onClick={() =>
                  file &&
                  start.mutate(file, {
                    onSuccess: () => {
                      setFile(null);
                      setInputKey((k) => k + 1);
                      dryRun.reset();
                    },
                  })
                }
              >
                <FileUp size={18} aria-hidden="true" />
                {start.isPending ? 'Starting…' : `Import ${plural(importable, 'user')}`}
              </Button>
            ) : null}
          </div>
        </Form>
        {dryRun.error ? (
          <Alert variant="danger" className="mt-3 mb-0">
            <Alert.Heading as="h3" className="h6">
              The file could not be read
            </Alert.Heading>
            <p className="mb-0">{dryRun.error.message}</p>
          </Alert>
        ) : null}
        {start.error ? (
          <Alert variant="danger" className="mt-3 mb-0">
            <Alert.Heading as="h3" className="h6">
              The import did not start
            </Alert.Heading>
            <p className="mb-0">{start.error.message}</p>
          </Alert>
        ) : null}
        {start.isSuccess ? (
          <Alert variant="success" className="mt-3 mb-0">
            The import of {start.data.fileName} started. Its progress shows below.
          </Alert>
        ) : null}
        {result ? <DryRunResult result={result} /> : null}
      </div>
    </div>
  );
}
