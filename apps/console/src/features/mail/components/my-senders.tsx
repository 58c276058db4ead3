import { SenderLists } from './sender-lists.tsx';

/** The profile's own allow and block lists: they apply to mail sent to the signed-in person only. */
export function MySenders() {
  return (
    <>
      <p className="small text-body-secondary">
        For mail to you only: mail from a sender you allow never goes to your Junk folder; mail from one you
        block is refused.
      </p>
      <SenderLists scope="own" id="own-senders" />
    </>
  );
}
