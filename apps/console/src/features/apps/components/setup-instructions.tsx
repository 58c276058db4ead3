/** Setup text from the catalog: one step per line. */
export function SetupInstructions({ text }: { text: string }) {
  const steps = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (steps.length === 0) return null;
  return (
    <ol className="small ps-3 mb-3">
      {steps.map((step) => (
        <li key={step}>{step}</li>
      ))}
    </ol>
  );
}
