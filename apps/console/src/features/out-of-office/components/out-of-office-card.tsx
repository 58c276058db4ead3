import {
  OUT_OF_OFFICE_MESSAGE_MAX,
  outOfOfficeBody,
  type OutOfOfficeBody,
  type OutOfOfficeView,
} from '@atrium/contracts/out-of-office';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Col from 'react-bootstrap/Col';
import Form from 'react-bootstrap/Form';
import Row from 'react-bootstrap/Row';
import Spinner from 'react-bootstrap/Spinner';
import { useForm } from 'react-hook-form';
import { ApiError } from '../../../lib/api-client.ts';
import { applyServerErrors } from '../../../lib/server-form-errors.ts';
import { ErrorAlert } from '../../auth/components/error-alert.tsx';
import { useOutOfOffice, useSaveOutOfOffice } from '../api/out-of-office.ts';

const dayFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' });
/** `YYYY-MM-DD` as "Dec 8, 2026" (the calendar day itself, whatever the viewer's time zone). */
const day = (value: string) => dayFormat.format(new Date(`${value}T00:00:00Z`));

/** What the saved setting does now, in one sentence. */
function statusOf(saved: OutOfOfficeView): string {
  if (!saved.enabled) return 'Off: nobody gets an automatic reply.';
  if (saved.activeNow) return `On: people who write to you get your reply until ${day(saved.lastDay)}.`;
  return `On from ${day(saved.firstDay)} to ${day(saved.lastDay)}.`;
}

/**
 * The out-of-office reply: on or off, the first and last day, the subject and the message. Saved,
 * it applies to the next message delivered; each sender gets it once every few days, and never
 * lists, bulk mail or no-reply senders (docs/mail.md).
 */
export function OutOfOfficeCard() {
  const current = useOutOfOffice();
  if (current.isPending) {
    return <Spinner animation="border" size="sm" role="status" aria-label="Loading out of office" />;
  }
  if (current.isError) return <ErrorAlert error={current.error instanceof ApiError ? current.error : null} />;
  return <OutOfOfficeForm saved={current.data} />;
}

function OutOfOfficeForm({ saved }: { saved: OutOfOfficeView }) {
  const save = useSaveOutOfOffice();
  const [failure, setFailure] = useState<ApiError | null>(null);
  const [done, setDone] = useState(false);
  const { register, handleSubmit, setError, formState } = useForm<OutOfOfficeBody>({
    resolver: zodResolver(outOfOfficeBody),
    defaultValues: {
      enabled: saved.enabled,
      firstDay: saved.firstDay,
      lastDay: saved.lastDay,
      subject: saved.subject,
      message: saved.message,
    },
  });
  const { errors, isSubmitting } = formState;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    setDone(false);
    try {
      await save.mutateAsync(values);
      setDone(true);
    } catch (error) {
      setFailure(applyServerErrors(error, setError, ['firstDay', 'lastDay', 'subject', 'message']));
    }
  });

  return (
    <Form noValidate onSubmit={onSubmit}>
      <p className="text-body-secondary small">
        An automatic reply to mail that arrives while you are away. Each sender gets it once every few days;
        mailing lists, newsletters and no-reply addresses never do.
      </p>
      <ErrorAlert error={failure} onClose={() => setFailure(null)} />
      <Form.Check
        type="switch"
        id="out-of-office-enabled"
        className="mb-3"
        label="Send automatic replies"
        {...register('enabled')}
      />
      <Row className="g-3 mb-3">
        <Col xs={12} sm={6} md={4}>
          <Form.Group controlId="out-of-office-first-day">
            <Form.Label>First day</Form.Label>
            <Form.Control type="date" {...register('firstDay')} isInvalid={!!errors.firstDay} />
            <Form.Control.Feedback type="invalid">{errors.firstDay?.message}</Form.Control.Feedback>
          </Form.Group>
        </Col>
        <Col xs={12} sm={6} md={4}>
          <Form.Group controlId="out-of-office-last-day">
            <Form.Label>Last day</Form.Label>
            <Form.Control type="date" {...register('lastDay')} isInvalid={!!errors.lastDay} />
            <Form.Control.Feedback type="invalid">{errors.lastDay?.message}</Form.Control.Feedback>
          </Form.Group>
        </Col>
      </Row>
      <Form.Group controlId="out-of-office-subject" className="mb-3">
        <Form.Label>Subject</Form.Label>
        <Form.Control {...register('subject')} autoComplete="off" isInvalid={!!errors.subject} />
        <Form.Control.Feedback type="invalid">{errors.subject?.message}</Form.Control.Feedback>
      </Form.Group>
      <Form.Group controlId="out-of-office-message" className="mb-3">
        <Form.Label>Message</Form.Label>
        <Form.Control
          as="textarea"
          rows={4}
          maxLength={OUT_OF_OFFICE_MESSAGE_MAX}
          {...register('message')}
          placeholder="e.g. I am away until Monday. For anything urgent, write to …"
          isInvalid={!!errors.message}
        />
        <Form.Control.Feedback type="invalid">{errors.message?.message}</Form.Control.Feedback>
      </Form.Group>
      <div className="d-flex flex-wrap gap-2 align-items-center">
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Saving…' : 'Save out of office'}
        </Button>
        <span role="status" className="small" data-testid="out-of-office-status">
          {done ? 'Saved. ' : ''}
          {statusOf(save.data ?? saved)}
        </span>
      </div>
    </Form>
  );
}
