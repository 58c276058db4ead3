import type { SenderListName } from '@atrium/contracts/mail-protection';
import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import ListGroup from 'react-bootstrap/ListGroup';
import Spinner from 'react-bootstrap/Spinner';
import { LoadMoreButton } from '../../../components/load-more-button.tsx';
import { ActionError } from '../../users/components/action-error.tsx';
import { useSenderList, useSenderMutations, type SenderScope } from '../api/mail-protection.ts';

const TITLES: Record<SenderListName, string> = { allow: 'Allowed senders', block: 'Blocked senders' };
const EMPTY: Record<SenderListName, string> = {
  allow: 'No allowed senders yet.',
  block: 'No blocked senders yet.',
};

/**
 * The allow and block lists of the organisation (Mail Settings) or of the signed-in person
 * (profile): one field, Allow or Block, and both lists read 50 at a time.
 */
export function SenderLists({ scope, id }: { scope: SenderScope; id: string }) {
  const [value, setValue] = useState('');
  const { add, remove } = useSenderMutations(scope);

  const submit = (list: SenderListName) => (event?: FormEvent) => {
    event?.preventDefault();
    if (!value.trim()) return;
    add.mutate({ list, value: value.trim() }, { onSuccess: () => setValue('') });
  };

  return (
    <>
      <Form onSubmit={submit('allow')} aria-label="Allow or block a sender" className="mb-3">
        <ActionError title="The sender was not added" error={add.error} onClose={() => add.reset()} />
        <Form.Group controlId={`${id}-sender`} className="mb-2">
          <Form.Label>Address or domain</Form.Label>
          <Form.Control
            value={value}
            onChange={(event) => {
              setValue(event.target.value);
              add.reset();
            }}
            placeholder="news@example.com or example.com"
            autoComplete="off"
            inputMode="email"
          />
          <Form.Text>A domain covers its subdomains too.</Form.Text>
        </Form.Group>
        <div className="d-flex flex-wrap gap-2">
          <Button type="submit" size="sm" disabled={!value.trim() || add.isPending}>
            Allow
          </Button>
          <Button
            variant="outline-danger"
            size="sm"
            disabled={!value.trim() || add.isPending}
            onClick={() => submit('block')()}
          >
            Block
          </Button>
        </div>
      </Form>
      <ActionError title="The sender was not removed" error={remove.error} onClose={() => remove.reset()} />
      <div className="row g-3">
        {(['allow', 'block'] as const).map((list) => (
          <div key={list} className="col-12 col-md-6">
            <SenderList scope={scope} list={list} onRemove={(entryId) => remove.mutate(entryId)} />
          </div>
        ))}
      </div>
    </>
  );
}

function SenderList(props: { scope: SenderScope; list: SenderListName; onRemove: (id: string) => void }) {
  const query = useSenderList(props.scope, props.list);
  const entries = query.data?.pages.flatMap((page) => page.entries) ?? [];
  const title = TITLES[props.list];
  return (
    <>
      <h3 className="h6">{title}</h3>
      {query.isPending ? (
        <Spinner animation="border" size="sm" role="status" aria-label={`Loading ${title.toLowerCase()}`} />
      ) : query.isError ? (
        <ActionError title={`The ${title.toLowerCase()} could not be loaded`} error={query.error} />
      ) : entries.length === 0 ? (
        <p className="small text-body-secondary mb-0">{EMPTY[props.list]}</p>
      ) : (
        <ListGroup as="ul" aria-label={title}>
          {entries.map((entry) => (
            <ListGroup.Item
              key={entry.id}
              as="li"
              className="d-flex align-items-center justify-content-between gap-2"
            >
              <span className="text-break min-w-0">{entry.value}</span>
              <Button
                variant="outline-secondary"
                size="sm"
                className="flex-shrink-0"
                aria-label={`Remove ${entry.value} from the ${title.toLowerCase()}`}
                onClick={() => props.onRemove(entry.id)}
              >
                Remove
              </Button>
            </ListGroup.Item>
          ))}
        </ListGroup>
      )}
      <LoadMoreButton pages={query}>Show more</LoadMoreButton>
    </>
  );
}
