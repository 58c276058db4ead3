import './qr-code.css';

/**
 * A QR code the server made: an <img> of an SVG data: URL (the CSP's img-src allows data:), so
 * nothing runs in the page to draw it.
 */
export function QrCode({ src, alt }: { src: string; alt: string }) {
  return <img src={src} alt={alt} width={200} height={200} className="atrium-qr-code border rounded" />;
}
