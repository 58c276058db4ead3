/** Text or an attribute value inside an XML document: the five characters XML gives meaning to. */
export function xmlText(value: string): string {
  return value.replace(
    /[<>&'"]/g,
    (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', "'": 'apos', '"': 'quot' }[c]};`,
  );
}

/** `<name>text</name>` lines, indented, from a flat record; undefined values are left out. */
export function xmlElements(indent: string, elements: Record<string, string | number | undefined>): string[] {
  return Object.entries(elements)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([name, value]) => `${indent}<${name}>${xmlText(String(value))}</${name}>`);
}
