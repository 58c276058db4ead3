import { isRouteErrorResponse, useRouteError } from 'react-router';

/** The status and its text, or the error message. */
export function describeRouteError(error: unknown): string {
  if (isRouteErrorResponse(error)) return `${error.status} ${error.statusText}`.trim();
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'Unknown error';
}

export function RouteError() {
  const error = useRouteError();
  return (
    <div className="atrium-public">
      <main className="atrium-public__inner">
        <div className="card atrium-card shadow-sm">
          <div className="card-body p-4 p-sm-5">
            <h1 className="h4 text-danger mb-2">Unexpected Application Error!</h1>
            <h2 className="h6 fw-normal text-body-secondary mb-4" data-testid="route-error-detail">
              {describeRouteError(error)}
            </h2>
            <a href="/dashboard" className="btn btn-primary">
              Reload the console
            </a>
          </div>
        </div>
      </main>
    </div>
  );
}
