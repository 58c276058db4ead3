import Form from 'react-bootstrap/Form';
import { useGroups } from '../../groups/api/groups.ts';

/** "Group": a choice among the organisation's groups, empty until one is chosen. */
export function GroupSelect({
  controlId,
  value,
  onChange,
}: {
  controlId: string;
  value: string;
  onChange: (groupId: string) => void;
}) {
  const groups = useGroups();
  return (
    <Form.Group controlId={controlId} className="mb-2">
      <Form.Label className="small mb-1">Group</Form.Label>
      <Form.Select value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose a group</option>
        {(groups.data?.groups ?? []).map((group) => (
          <option key={group.id} value={group.id}>
            {group.name}
          </option>
        ))}
      </Form.Select>
    </Form.Group>
  );
}
