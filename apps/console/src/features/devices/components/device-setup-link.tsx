import { Smartphone } from 'lucide-react';
import { Link } from 'react-router';
import { paths } from '../../../lib/paths.ts';

export const DEVICE_SETUP_LINK_TEXT = 'Set up mail, calendars and contacts on your phone or computer';

/**
 * Where "Set up a device" is reached from outside /profile (the apps page, the dashboard's setup
 * card; issue 42 item 5). Always shown, so nothing moves when the server's answer arrives: on a
 * server without MAIL_HOST the section it opens says so.
 */
export function DeviceSetupLink({ className }: { className?: string }) {
  return (
    <Link
      to={paths.profileDevices()}
      className={`d-inline-flex align-items-center gap-2 ${className ?? ''}`.trim()}
    >
      <Smartphone size={18} aria-hidden="true" className="flex-shrink-0" />
      {DEVICE_SETUP_LINK_TEXT}
    </Link>
  );
}
