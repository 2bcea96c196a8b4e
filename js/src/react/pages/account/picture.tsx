// Choosing a picture for the user or a team: a file, cut to a square (zoom and position with
// sliders, which the keyboard moves too) and made small in the browser, then sent as the data
// URL the client tier accepts (`data:image/jpeg;base64,...`). Imports only React and the kit.
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { ActionRow } from "./action-row.js";
import { useSectionKit } from "./kit.js";

/** The side of the square that is sent, in pixels (a smaller picture is not enlarged). */
export const PICTURE_SIZE = 256;
/** The most characters a picture's data URL may have; the service takes 1 000 000, Stack's SDK sends ~100 KB. */
export const PICTURE_MAX_CHARS = 140_000;

export interface Crop {
  /** 1 = the whole shorter side; 3 = a third of it. */
  zoom: number;
  /** -100 (left or top edge) … 100 (right or bottom edge). */
  x: number;
  y: number;
}

/** The square of the source (in its pixels) that a crop takes. */
export function cropSquare(width: number, height: number, crop: Crop) {
  const side = Math.min(width, height) / crop.zoom;
  const left = ((width - side) / 2) * (1 + crop.x / 100);
  const top = ((height - side) / 2) * (1 + crop.y / 100);
  return { left, top, side };
}

/** Draws the crop of `image` onto `canvas`, `size` pixels square. */
function draw(canvas: HTMLCanvasElement, image: HTMLImageElement, crop: Crop, size: number) {
  canvas.width = size;
  canvas.height = size;
  const context = canvas.getContext("2d");
  if (!context) return;
  const { left, top, side } = cropSquare(image.naturalWidth, image.naturalHeight, crop);
  // JPEG has no transparency: a transparent picture gets a white ground, not a black one.
  context.fillStyle = "#fff";
  context.fillRect(0, 0, size, size);
  context.imageSmoothingQuality = "high";
  context.drawImage(image, left, top, side, side, 0, 0, size, size);
}

/** The crop as a JPEG data URL, at the best quality under PICTURE_MAX_CHARS. */
export function encodePicture(image: HTMLImageElement, crop: Crop): string {
  const canvas = document.createElement("canvas");
  const side = cropSquare(image.naturalWidth, image.naturalHeight, crop).side;
  draw(canvas, image, crop, Math.max(1, Math.min(PICTURE_SIZE, Math.round(side))));
  let url = "";
  for (const quality of [0.9, 0.8, 0.7, 0.6, 0.5, 0.4]) {
    url = canvas.toDataURL("image/jpeg", quality);
    if (url.length <= PICTURE_MAX_CHARS) break;
  }
  return url;
}

function loadImage(file: File): Promise<HTMLImageElement> {
  const url = URL.createObjectURL(file);
  return new Promise<HTMLImageElement>((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error("not an image"));
    image.src = url;
  }).finally(() => URL.revokeObjectURL(url));
}

/**
 * A picture as a row ("Change" opens the chooser): a file field, a live preview of the square
 * that will be sent, zoom and position sliders, Save, and Remove when there is a picture.
 * `save(url)` stores the data URL (null removes the picture).
 */
export function PictureRow(props: {
  title: string;
  current: string | null;
  testId: string;
  save(url: string | null): Promise<unknown>;
}) {
  const { useMessages, Status, useSubmit } = useSectionKit();
  const m = useMessages();
  const submit = useSubmit();
  const [status, setStatus] = useState<string | null>(null);
  return (
    <>
      <ActionRow title={props.title} summary={props.current ? m.hasPicture : m.noPicture} action={m.change} testId={props.testId}>
        {(cancel, close) => (
          <PictureForm
            {...props}
            submit={submit}
            cancel={cancel}
            done={(message) => {
              setStatus(message);
              close();
            }}
          />
        )}
      </ActionRow>
      <Status message={status} testId={`${props.testId}-status`} />
    </>
  );
}

function PictureForm(props: {
  current: string | null;
  testId: string;
  save(url: string | null): Promise<unknown>;
  submit: ReturnType<ReturnType<typeof useSectionKit>["useSubmit"]>;
  cancel: ReactNode;
  done(message: string): void;
}) {
  const { useMessages, FormError, SubmitButton } = useSectionKit();
  const m = useMessages();
  const { submit } = props;
  const id = useId();
  const [image, setImage] = useState<HTMLImageElement | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [crop, setCrop] = useState<Crop>({ zoom: 1, x: 0, y: 0 });
  const preview = useRef<HTMLCanvasElement>(null);

  useEffect(() => {
    if (image && preview.current) draw(preview.current, image, crop, 160);
  }, [image, crop]);

  async function onFile(file: File | undefined) {
    setImage(null);
    setFileError(null);
    setCrop({ zoom: 1, x: 0, y: 0 });
    if (!file) return;
    try {
      setImage(await loadImage(file));
    } catch {
      setFileError(m.pictureUnreadable);
    }
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!image) {
      setFileError(fileError ?? m.pictureRequired);
      event.currentTarget.querySelector<HTMLInputElement>("input[type=file]")?.focus();
      return;
    }
    if ((await submit.run(() => props.save(encodePicture(image, crop)))).ok) props.done(m.pictureSaved);
  }

  const slider = (key: keyof Crop, label: string, min: number, max: number, step: number) => (
    <div className="authmw-field authmw-slider">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input
        id={`${id}-${key}`}
        type="range"
        min={min}
        max={max}
        step={step}
        value={crop[key]}
        onChange={(event) => setCrop({ ...crop, [key]: Number(event.target.value) })}
        data-testid={`${props.testId}-${key}`}
      />
    </div>
  );

  return (
    <form onSubmit={onSubmit} className="authmw-form authmw-inline-form" noValidate aria-busy={submit.pending} data-testid={`${props.testId}-form`}>
      <div className="authmw-field">
        <label htmlFor={`${id}-file`}>{m.pictureFile}</label>
        <input
          id={`${id}-file`}
          type="file"
          accept="image/png,image/jpeg,image/gif,image/webp"
          onChange={(event) => onFile(event.target.files?.[0])}
          aria-invalid={fileError ? true : undefined}
          aria-describedby={`${id}-hint${fileError ? ` ${id}-error` : ""}`}
          data-testid={`${props.testId}-file`}
        />
        <p id={`${id}-hint`} className="authmw-hint">
          {m.pictureFileHint}
        </p>
        {fileError && (
          <p id={`${id}-error`} className="authmw-field-error" role="alert">
            {fileError}
          </p>
        )}
      </div>
      {image && (
        <div className="authmw-picture-crop">
          <canvas ref={preview} className="authmw-picture-preview" role="img" aria-label={m.picturePreview} data-testid={`${props.testId}-preview`} />
          <div className="authmw-picture-sliders">
            {slider("zoom", m.pictureZoom, 1, 3, 0.05)}
            {slider("x", m.pictureHorizontal, -100, 100, 1)}
            {slider("y", m.pictureVertical, -100, 100, 1)}
          </div>
        </div>
      )}
      <FormError id={submit.formErrorId} message={submit.error} />
      <div className="authmw-actions">
        <SubmitButton pending={submit.pending} label={m.savePicture} pendingLabel={m.saving} />
        {props.current && (
          <button
            type="button"
            disabled={submit.pending}
            data-testid={`${props.testId}-remove`}
            onClick={async () => {
              if ((await submit.run(() => props.save(null))).ok) props.done(m.pictureRemoved);
            }}
          >
            {m.removePicture}
          </button>
        )}
        {props.cancel}
      </div>
    </form>
  );
}
