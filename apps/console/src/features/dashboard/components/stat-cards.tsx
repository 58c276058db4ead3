import type { Dashboard } from '@atrium/contracts/dashboard';
import { AppWindow, Globe, UserRound, UsersRound, type LucideIcon } from 'lucide-react';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths.ts';

interface Stat {
  label: string;
  icon: LucideIcon;
  to: string;
  tone: string;
  value: string;
  detail: string;
  /** The users card: seats used (every user holds one) of seats bought. */
  seats?: { used: number; bought: number; loading?: boolean } | undefined;
}

const LOADING = '\u00a0';
const LOADING_SEATS = { used: 0, bought: 0, loading: true } as const;

function statsOf(counts: Dashboard['counts'] | undefined): Stat[] {
  const n = (v: number | undefined) => (v === undefined ? '—' : String(v));
  const users = counts?.users;
  const domains = counts?.domains;
  return [
    {
      label: 'Users',
      icon: UserRound,
      to: paths.users(),
      tone: 'indigo',
      value: n(users?.total),
      // While loading, the lines the card will have hold their place, so nothing below moves.
      detail: users
        ? `${users.active} active · ${users.invited} invited · ${users.suspended} suspended`
        : LOADING,
      seats: counts ? counts.seats : LOADING_SEATS,
    },
    {
      label: 'Domains',
      icon: Globe,
      to: paths.domains(),
      tone: 'sky',
      value: n(domains?.total),
      detail: domains
        ? `${domains.verified} verified · ${domains.pending} pending · ${domains.failed} failed`
        : LOADING,
    },
    {
      label: 'Groups',
      icon: UsersRound,
      to: paths.groups(),
      tone: 'emerald',
      value: n(counts?.groups),
      detail: '',
    },
    {
      label: 'Apps',
      icon: AppWindow,
      to: paths.apps(),
      tone: 'amber',
      value: n(counts?.apps),
      detail: 'installed',
    },
  ];
}

function SeatsLine({ seats }: { seats: { used: number; bought: number; loading?: boolean } }) {
  if (seats.loading) {
    return (
      <span className="d-block mt-1 invisible" aria-hidden="true">
        <span className="d-block small">{LOADING}</span>
        <span className="progress mt-1" style={{ height: '0.35rem' }} />
      </span>
    );
  }
  const percent = seats.bought > 0 ? Math.min(100, Math.round((seats.used / seats.bought) * 100)) : 100;
  return (
    <span className="d-block mt-1" data-testid="stat-seats">
      <span className="d-block small text-body-secondary">
        {seats.used} of {seats.bought} seats used
      </span>
      <span
        className="progress mt-1"
        role="progressbar"
        aria-label={`Seats: ${seats.used} of ${seats.bought} used`}
        aria-valuenow={percent}
        aria-valuemin={0}
        aria-valuemax={100}
        style={{ height: '0.35rem' }}
      >
        <span
          className={`progress-bar ${seats.used >= seats.bought ? 'bg-danger' : 'bg-primary'}`}
          style={{ width: `${percent}%` }}
        />
      </span>
    </span>
  );
}

/** Users (by status, with seats used of bought), domains (by state), groups and apps. */
export function StatCards({ counts }: { counts: Dashboard['counts'] | undefined }) {
  return (
    <div className="row g-3 mb-4">
      {statsOf(counts).map(({ label, icon: Icon, to, tone, value, detail, seats }) => (
        <div key={label} className="col-12 col-sm-6 col-xl-3">
          <Link
            to={to}
            className="card atrium-card atrium-stat h-100 text-decoration-none"
            data-testid={`stat-${label.toLowerCase()}`}
          >
            <div className="card-body d-flex align-items-center gap-3">
              <span className={`atrium-stat__icon tone-${tone}`} aria-hidden="true">
                <Icon size={22} strokeWidth={1.85} />
              </span>
              <span className="min-w-0 flex-grow-1">
                <span className="d-block text-body-secondary small">{label}</span>
                <span className="d-block fs-4 fw-semibold text-body">{value}</span>
                {detail ? <span className="d-block small text-body-secondary">{detail}</span> : null}
                {seats ? <SeatsLine seats={seats} /> : null}
              </span>
            </div>
          </Link>
        </div>
      ))}
    </div>
  );
}
