/** Tag suggestions under the link form's tags field, as the person types (docs/web-ui.md#link-forms). */
export function TagSuggestions({ names }: { names: readonly string[] }) {
  return (
    <>
      {names.map((n) => (
        <button type="button" class="btn btn-xs btn-outline" data-tag-suggestion data-tag={n}>
          {n}
        </button>
      ))}
    </>
  );
}
