import { Dialog } from './dialog.js';

/** A question with one consequential action and a way out. */
export function ConfirmDialog({
  title,
  text,
  action,
  danger,
  onConfirm,
  onClose,
}: {
  title: string;
  text: string;
  action: string;
  danger?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog title={title} onClose={onClose}>
      <p>{text}</p>
      <div class="actions">
        <button type="button" class={danger ? 'danger' : 'primary'} onClick={onConfirm}>
          {action}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
