// The Alerts page's plain empty state while DESIGN §8's detectors and alerts routes answer 404 on this service
// (another issue builds them): a statement, not an error.
export function NotSetUp() {
  return (
    <div class="empty-state" role="status">
      <strong>Detectors and alerts are not set up on this service yet</strong>
      <span class="muted">Once this service evaluates detectors, their alerts and the detector catalog appear here.</span>
    </div>
  );
}
