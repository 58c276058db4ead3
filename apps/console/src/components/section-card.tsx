import type { ReactNode } from 'react';
import Card from 'react-bootstrap/Card';

/**
 * One section of a page in a card, under its h2 title. `titleMargin` "mb-1" keeps a lead
 * paragraph close under the title; `className` adds to the card's own (e.g. "mb-4").
 * Confirmation dialogs may sit among the children: they open over the page, not in the card.
 */
export function SectionCard({
  title,
  titleMargin = 'mb-3',
  className,
  children,
}: {
  title: ReactNode;
  titleMargin?: 'mb-1' | 'mb-3';
  className?: string;
  children: ReactNode;
}) {
  return (
    <Card className={className ? `atrium-card ${className}` : 'atrium-card'}>
      <Card.Body>
        <Card.Title as="h2" className={`h5 ${titleMargin}`}>
          {title}
        </Card.Title>
        {children}
      </Card.Body>
    </Card>
  );
}
