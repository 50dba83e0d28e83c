// An API error as the service worded it (DESIGN §7: every error from the API shown with its `detail`).
import { ApiError } from '../lib/api';

export function ErrorNote({ error, onClose }: { error: unknown; onClose?: () => void }) {
  if (error === '' || error === null || error === undefined) return null;
  const text = error instanceof ApiError ? error.detail : error instanceof Error ? error.message : typeof error === 'string' ? error : JSON.stringify(error);
  const status = error instanceof ApiError ? `${error.status} ` : '';
  return (
    <div class="error" role="alert">
      <span class="error-status">{status}</span>{text}
      {onClose && <button type="button" class="ghost small" aria-label="Dismiss error" onClick={onClose}>×</button>}
    </div>
  );
}
