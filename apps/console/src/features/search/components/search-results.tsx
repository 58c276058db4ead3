import { Link } from 'react-router';
import { OPTION_GROUPS, type SearchOption } from '../search-options.ts';

export type SearchStatus = { state: 'searching' } | { state: 'failed'; message: string } | { state: 'done' };

/**
 * The open search's list: one listbox of options grouped under visible headings (Pages, Users,
 * Groups, Domains, Apps). The input keeps the focus and points at the active option through
 * aria-activedescendant (the ARIA combobox pattern); options are links, so a click opens them.
 */
export function SearchResults({
  id,
  query,
  options,
  activeKey,
  optionId,
  status,
  onPick,
}: {
  id: string;
  query: string;
  options: SearchOption[];
  activeKey: string | null;
  optionId: (key: string) => string;
  status: SearchStatus;
  onPick: () => void;
}) {
  return (
    <div className="atrium-search__results card shadow">
      <div id={id} role="listbox" aria-label="Search results" className="atrium-search__listbox">
        {OPTION_GROUPS.map(({ kind, heading }) => {
          const items = options.filter((option) => option.kind === kind);
          if (items.length === 0) return null;
          const headingId = `${id}-${kind}`;
          return (
            <div key={kind} role="group" aria-labelledby={headingId} className="atrium-search__group">
              <div id={headingId} role="presentation" className="atrium-search__heading">
                {heading}
              </div>
              {items.map((option) => {
                const Icon = option.icon;
                return (
                  <Link
                    key={option.key}
                    id={optionId(option.key)}
                    role="option"
                    aria-selected={option.key === activeKey}
                    tabIndex={-1}
                    to={option.href}
                    className={`atrium-search__result${option.key === activeKey ? ' is-active' : ''}`}
                    // Keep the focus in the input, where the keyboard works the list.
                    onMouseDown={(event) => event.preventDefault()}
                    onClick={onPick}
                  >
                    {Icon ? <Icon size={16} aria-hidden="true" className="flex-shrink-0" /> : null}
                    <span className="atrium-search__text">
                      <span className={`atrium-search__label-text ${option.classes ?? ''}`}>
                        {option.label}
                      </span>
                      {option.secondary ? (
                        <span className="atrium-search__secondary">{option.secondary}</span>
                      ) : null}
                    </span>
                  </Link>
                );
              })}
            </div>
          );
        })}
      </div>
      <p role="status" className="atrium-search__status small mb-0">
        {status.state === 'searching'
          ? 'Searching…'
          : status.state === 'failed'
            ? status.message
            : options.length === 0
              ? `No results for “${query}”`
              : ''}
      </p>
    </div>
  );
}
