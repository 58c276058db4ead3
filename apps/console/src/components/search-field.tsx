import Form from 'react-bootstrap/Form';

/** A small labelled search box above a list (a group's members, the mail aliases). */
export function SearchField({
  id,
  label,
  placeholder,
  value,
  onChange,
}: {
  id: string;
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Form.Group controlId={id} className="mb-2">
      <Form.Label className="small mb-1">{label}</Form.Label>
      <Form.Control
        type="search"
        placeholder={placeholder}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </Form.Group>
  );
}
