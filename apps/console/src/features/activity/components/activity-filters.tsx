import type { ActivityFilter } from '@atrium/contracts/activity';
import { activityKinds } from '@atrium/contracts/activity-kinds';
import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import { useForm } from 'react-hook-form';
import { useActivityActors } from '../api/get-activity-actors.ts';
import { filterFormSchema, toFormValues, type FilterFormValues } from './filter-values.ts';

/** Actor, kind and date range; applying them changes the page's address (and so the list). */
export function ActivityFilters({
  filter,
  onApply,
}: {
  filter: ActivityFilter;
  onApply: (filter: ActivityFilter) => void;
}) {
  const actors = useActivityActors();
  const form = useForm<FilterFormValues, unknown, ActivityFilter>({
    resolver: zodResolver(filterFormSchema),
    defaultValues: toFormValues(filter),
  });
  const { errors } = form.formState;

  // Back/forward changes the address: show the filter the list now uses.
  useEffect(() => {
    form.reset(toFormValues(filter));
  }, [filter, form]);

  return (
    <Form
      noValidate
      className="row g-2 align-items-end mb-3"
      aria-label="Filter the activity log"
      onSubmit={form.handleSubmit(onApply)}
    >
      <Form.Group className="col-12 col-sm-6 col-lg-3" controlId="activity-actor">
        <Form.Label className="small mb-1">Who</Form.Label>
        <Form.Select size="sm" {...form.register('actor')} isInvalid={!!errors.actor}>
          <option value="">Anyone</option>
          {(actors.data?.actors ?? []).map((a) => (
            <option key={a.value} value={a.value}>
              {a.label}
            </option>
          ))}
        </Form.Select>
        <Form.Control.Feedback type="invalid">{errors.actor?.message}</Form.Control.Feedback>
      </Form.Group>
      <Form.Group className="col-12 col-sm-6 col-lg-3" controlId="activity-kind">
        <Form.Label className="small mb-1">Kind</Form.Label>
        <Form.Select size="sm" {...form.register('kind')} isInvalid={!!errors.kind}>
          <option value="">Every kind</option>
          {activityKinds.map((k) => (
            <option key={k.value} value={k.value}>
              {k.label}
            </option>
          ))}
        </Form.Select>
        <Form.Control.Feedback type="invalid">{errors.kind?.message}</Form.Control.Feedback>
      </Form.Group>
      <Form.Group className="col-6 col-lg-2" controlId="activity-from">
        <Form.Label className="small mb-1">From</Form.Label>
        <Form.Control type="date" size="sm" {...form.register('from')} isInvalid={!!errors.from} />
        <Form.Control.Feedback type="invalid">{errors.from?.message}</Form.Control.Feedback>
      </Form.Group>
      <Form.Group className="col-6 col-lg-2" controlId="activity-to">
        <Form.Label className="small mb-1">To</Form.Label>
        <Form.Control type="date" size="sm" {...form.register('to')} isInvalid={!!errors.to} />
        <Form.Control.Feedback type="invalid">{errors.to?.message}</Form.Control.Feedback>
      </Form.Group>
      <div className="col-12 col-lg-2 d-flex gap-2">
        <Button type="submit" size="sm" className="flex-grow-1">
          Apply
        </Button>
        <Button
          type="button"
          size="sm"
          variant="outline-secondary"
          onClick={() => onApply({})}
          disabled={Object.keys(filter).length === 0}
        >
          Reset
        </Button>
      </div>
    </Form>
  );
}
