import { LayoutDashboard, LogOut, UserRound, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useCurrentUser } from '../features/auth/api/current-user.ts';
import { signOut } from '../features/auth/sign-out.ts';
import { SuperFast } from '../lib/constants.ts';
import { paths } from '../lib/paths.ts';
import { Avatar } from './avatar.tsx';

/** The header avatar and the profile panel it opens. */
export function ProfileMenu() {
  const user = useCurrentUser();
  const [open, setOpen] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const navigate = useNavigate();
  const panelId = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const timer = useRef<number | undefined>(undefined);

  useEffect(() => () => window.clearTimeout(timer.current), []);

  useEffect(() => {
    if (!open) return;
    function onPointerDown(event: PointerEvent) {
      if (rootRef.current && !rootRef.current.contains(event.target as Node)) setOpen(false);
    }
    function onKeyDown(event: KeyboardEvent) {
      if (event.key === 'Escape') {
        setOpen(false);
        buttonRef.current?.focus();
      }
    }
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);

  function close() {
    setOpen(false);
    buttonRef.current?.focus();
  }

  function goToMyAccount() {
    setLeaving(true);
    timer.current = window.setTimeout(() => {
      setLeaving(false);
      setOpen(false);
      // The seed spec sends 'My account' to an account portal: the operator's, or /profile.
      const target = user.accountPortalUrl;
      if (target.startsWith('/')) void navigate(target);
      else window.location.assign(target);
    }, SuperFast);
  }

  const name = user.name.trim() || 'User name';
  const email = user.email.trim() || 'User email id';

  return (
    <div className="atrium-profile" ref={rootRef}>
      <button
        ref={buttonRef}
        type="button"
        className="atrium-icon-btn atrium-avatar-btn"
        aria-label="Open profile panel"
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        <Avatar text={user.name || user.email} />
      </button>
      {open ? (
        <div id={panelId} className="atrium-profile__panel card shadow" role="dialog" aria-label="Profile">
          <button
            type="button"
            className="atrium-icon-btn atrium-profile__close"
            aria-label="Close profile panel"
            onClick={close}
          >
            <X size={18} aria-hidden="true" />
          </button>
          <div className="card-body text-center pt-4">
            <Avatar text={user.name || user.email} size={64} fontSize={30} className="mb-3" />
            <div className="fw-semibold fs-6 text-truncate" data-testid="profile-name">
              {name}
            </div>
            <div className="text-body-secondary small text-truncate" data-testid="profile-email">
              {email}
            </div>
            {user.isAdmin ? (
              <Link
                to={paths.dashboard()}
                className="btn btn-outline-primary btn-sm mt-3 d-inline-flex align-items-center gap-2"
                onClick={() => setOpen(false)}
              >
                <LayoutDashboard size={16} aria-hidden="true" />
                Go to Admin Console
              </Link>
            ) : null}
          </div>
          <div className="card-footer bg-transparent d-flex gap-2 p-3">
            <button
              type="button"
              className="btn btn-light border flex-fill d-inline-flex align-items-center justify-content-center gap-2"
              onClick={goToMyAccount}
              disabled={leaving}
            >
              {leaving ? (
                <span className="spinner-border spinner-border-sm" aria-hidden="true" />
              ) : (
                <UserRound size={16} aria-hidden="true" />
              )}
              My account
            </button>
            <button
              type="button"
              className="btn btn-light border flex-fill d-inline-flex align-items-center justify-content-center gap-2"
              onClick={() => void signOut()}
            >
              <LogOut size={16} aria-hidden="true" />
              Sign out
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
