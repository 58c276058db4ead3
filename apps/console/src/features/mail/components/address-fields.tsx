import Form from 'react-bootstrap/Form';

/** The part before the @ and one of the organisation's verified domains. */
export function AddressFields({
  id,
  localPart,
  domain,
  domains,
  onLocalPart,
  onDomain,
}: {
  id: string;
  localPart: string;
  domain: string;
  domains: string[];
  onLocalPart: (value: string) => void;
  onDomain: (value: string) => void;
}) {
  return (
    <div className="mb-2">
      <Form.Label htmlFor={`${id}-local`} className="small mb-1">
        Address
      </Form.Label>
      {/* Side by side from 576 px; on a phone the domain goes below, so neither is cut short. */}
      <div className="row g-2">
        <div className="col-12 col-sm-5">
          <div className="input-group">
            <Form.Control
              id={`${id}-local`}
              value={localPart}
              autoComplete="off"
              placeholder="sales"
              onChange={(e) => onLocalPart(e.target.value)}
            />
            <span className="input-group-text">@</span>
          </div>
        </div>
        <div className="col-12 col-sm-7">
          <Form.Select aria-label="Domain" value={domain} onChange={(e) => onDomain(e.target.value)}>
            {domains.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </Form.Select>
        </div>
      </div>
    </div>
  );
}
