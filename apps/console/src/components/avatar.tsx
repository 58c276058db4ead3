import type { CSSProperties } from 'react';
import { AVATAR_DEFAULT } from '../lib/constants.ts';

export interface AvatarProps {
  /** The text whose first letter is shown, uppercased; '?' when missing. */
  text?: string | null | undefined;
  size?: number;
  fontSize?: number;
  color?: string;
  className?: string;
}

export function avatarLetter(text: string | null | undefined): string {
  const first = text?.trim().charAt(0);
  return first ? first.toUpperCase() : '?';
}

export function Avatar({
  text,
  size = AVATAR_DEFAULT.width,
  fontSize = AVATAR_DEFAULT.fontSize,
  color = AVATAR_DEFAULT.color,
  className,
}: AvatarProps) {
  const style: CSSProperties = {
    width: size,
    height: size,
    fontSize,
    lineHeight: `${size}px`,
    backgroundColor: color,
  };
  return (
    <span className={['atrium-avatar', className].filter(Boolean).join(' ')} style={style} aria-hidden="true">
      {avatarLetter(text)}
    </span>
  );
}
