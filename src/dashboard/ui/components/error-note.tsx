/** An error said out loud to screen readers (role=alert); nothing when there is none. */
export function ErrorNote({ message }: { message: string | null }) {
  return message ? (
    <p class="error" role="alert">
      {message}
    </p>
  ) : null;
}
