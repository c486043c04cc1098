"""Image files from untrusted paths, read as a vision model expects them (Pillow; no Qt).

Only a regular file is read, opened without blocking (a named pipe or a device is refused by its type, checked on
the open descriptor), at most :data:`MAX_IMAGE_BYTES` of it; Pillow may decode only PNG, JPEG, WebP, BMP and GIF
(the first frame), and an image of more than :data:`MAX_IMAGE_PIXELS` pixels, or whose longer side is more than
:data:`MAX_ASPECT` times its shorter (a 50,000,000 × 1 PNG of 48 KB), is refused from its header, before it is decoded
(a decompression bomb: a 30,000 × 30,000 PNG of a few KB). A larger image than any model reads is brought down to at
most :data:`MAX_WORKING_SIDE` pixels a side as it is decoded (a JPEG decoded at 1/2, 1/4 or 1/8 of its size, another
format shrunk by whole factors right after decoding), so that no later step works on more: Pillow's decoding, its
conversions and its reductions let other threads run, but some of its steps (alpha compositing, taking a channel, a
resize's tables) hold Python's lock for as long as they take, and the window's event loop waits on them. Any mode
(grey, RGB, RGBA, palette, 16-bit, CMYK) becomes grey, transparency over black (the background of Fashion-MNIST's
pictures), and is resized to the model's square size. Every problem is an :class:`ImageError` whose message names
the file.

An image far larger than the model reads is decoded reduced (``reduce_to``, the side the model's reader resizes to):
a JPEG by its decoder at 1/2, 1/4 or 1/8 of its size (Pillow's ``draft``), any image to 1/f of its sides (each
pixel the mean of the area it covers) as soon as it is decoded, keeping its shorter side at least twice ``reduce_to``:
a 7,000 × 7,000 photograph read at 28 × 28 is held as 56 × 56 pixels, whatever the folder holds.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import warnings
from pathlib import Path

import numpy as np

from attnviz.core.safe_output import kind_of
from attnviz.i18n import tr

MAX_IMAGE_BYTES = 64 * 1024 * 1024  # a 28 × 28 picture takes a few hundred bytes; a photograph a few MB
MAX_IMAGE_PIXELS = 50_000_000  # width × height at most (a 50-megapixel photograph)
MAX_ASPECT = 32  # the longer side at most this many times the shorter (a panorama is 4–10 times as wide as high)
MAX_WORKING_SIDE = 4096  # pixels a side kept once decoded: twice the largest model input (core/hf/folder.py's 2,048)
FORMATS = ("PNG", "JPEG", "WEBP", "BMP", "GIF")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".gif")  # a file taken for an image (a folder's, a drop)


class ImageError(ValueError):
    """An image file that cannot be read; the message names the file and the problem, in one sentence."""


def _read_bytes(path: Path) -> bytes:
    """The file's bytes, refused unless it is a regular file of at most MAX_IMAGE_BYTES (never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ImageError(tr("{path}: no such file").format(path=path)) from None
    except IsADirectoryError:
        raise ImageError(tr("{path}: is {kind}, not an image file").format(path=path, kind=tr("a folder"))) from None
    except PermissionError:
        raise ImageError(tr("{path}: permission denied (the file is not readable by you)").format(path=path)) from None
    except OSError as error:
        if error.errno == errno.ENXIO:  # a socket, or a FIFO no one writes to, refused by the open itself
            raise ImageError(tr("{path}: is not a regular file (a pipe, socket or device?)").format(path=path)
                             ) from None
        raise ImageError(tr("{path}: cannot be opened ({error})").format(path=path, error=error.strerror or error)
                         ) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ImageError(tr("{path}: is {kind}, not an image file").format(path=path, kind=kind_of(mode)))
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > MAX_IMAGE_BYTES:
                raise ImageError(tr("{path}: over {mb} MB, larger than any image attnviz reads").format(
                    path=path, mb=MAX_IMAGE_BYTES // 2**20))
            chunks.append(chunk)
        return b"".join(chunks)
    except BlockingIOError:  # a regular file that has nothing to give now (/proc/kmsg)
        raise ImageError(tr("{path}: cannot be read without waiting (not an image file)").format(path=path)) from None
    except OSError as error:
        raise ImageError(tr("{path}: cannot be read ({error})").format(path=path, error=error.strerror or error)
                         ) from None
    finally:
        os.close(fd)


def read_grey(path: str | Path, side: int) -> np.ndarray:
    """The image at ``path`` as grey pixels (side, side), float32 in [0, 1] (0 black); ImageError if it cannot be."""
    return to_grey(open_image(path), side)


def reduction(width: int, height: int, reduce_to: int | None) -> int:
    """The whole factor f an image of width × height pixels is reduced by (1: not at all) so that its shorter side
    stays at least twice ``reduce_to`` pixels (None: never reduced)."""
    if not reduce_to or reduce_to < 1:
        return 1
    return max(1, min(width, height) // (2 * reduce_to))


def open_image(path: str | Path, reduce_to: int | None = None):  # -> PIL.Image.Image (Pillow imported when read)
    """The image at ``path``, decoded (its first frame), as Pillow's "L" (grey) or "RGB": 16-bit grey scaled to 8
    bits (never clipped), transparency composited over black, palette, CMYK and bilevel images converted;
    ImageError (naming the file) if it cannot be read. ``reduce_to``: the side in pixels the model reads it at (its
    reader's :attr:`~attnviz.core.models.image_reading.ImageReader.side`): a larger image is decoded reduced by
    :func:`reduction` (see the module's docstring), so that it takes the memory of a small one from then on."""
    from PIL import Image, UnidentifiedImageError

    path = Path(path)
    data = _read_bytes(path)
    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS  # Pillow refuses twice this at open; between, the check below does
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # (refused below, with the sizes)
            with Image.open(io.BytesIO(data), formats=FORMATS) as image:  # (reads the header only)
                width, height = image.size
                if width * height > MAX_IMAGE_PIXELS:
                    raise ImageError(tr("{path}: {width:,} × {height:,} pixels, more than the {most:,} attnviz "
                                        "decodes (a decompression bomb?)").format(path=path, width=width,
                                                                                  height=height, most=MAX_IMAGE_PIXELS))
                if max(width, height) > MAX_ASPECT * max(min(width, height), 1):
                    raise ImageError(tr("{path}: {width:,} × {height:,} pixels, a strip rather than a picture: attnviz "
                                        "reads images whose longer side is at most {most} times the shorter").format(
                        path=path, width=width, height=height, most=MAX_ASPECT))
                image.seek(0)  # a GIF's first frame
                factor = max(reduction(width, height, reduce_to), _factor(image.size))
                if factor > 1 and image.format == "JPEG":  # decoded at 1/2, 1/4 or 1/8 of its size, not whole
                    image.draft(image.mode, (-(-width // factor), -(-height // factor)))
                image.load()
                image = _bounded(image)  # (at most MAX_WORKING_SIDE a side, its mode one that can be averaged)
                if image.mode in ("L", "RGB") and "transparency" not in image.info:
                    image = _reduced(image, reduce_to)  # (before any copy of it is made)
                elif image.mode == "RGBA" and reduction(image.width, image.height, reduce_to) > 1:
                    image = _reduced(image.convert("RGBa"), reduce_to)  # (premultiplied: the areas' means over black)
                return _reduced(_plain(image), reduce_to)
    except ImageError:
        raise
    except UnidentifiedImageError:
        raise ImageError(tr("{path}: not an image attnviz reads (PNG, JPEG, WebP, BMP or GIF)").format(path=path)
                         ) from None
    except Image.DecompressionBombError:
        raise ImageError(tr("{path}: more than {most:,} pixels, more than attnviz decodes (a decompression "
                            "bomb?)").format(path=path, most=MAX_IMAGE_PIXELS)) from None
    except (OSError, SyntaxError, ValueError, EOFError, MemoryError, IndexError, TypeError, ZeroDivisionError) as error:
        raise ImageError(tr("{path}: the image is damaged or cut short ({error})").format(path=path, error=error)
                         ) from None


def _reduced(image, reduce_to: int | None):  # PIL.Image.Image -> PIL.Image.Image
    """An "L", "RGB" or premultiplied "RGBa" image reduced by :func:`reduction` (each pixel the mean of the f × f
    pixels it covers, its sides rounded: the whole picture kept, none of it shifted), or itself."""
    from PIL import Image

    factor = reduction(image.width, image.height, reduce_to)
    if factor == 1:
        return image
    return image.resize((round(image.width / factor), round(image.height / factor)), Image.Resampling.BOX)


def _factor(size: tuple[int, int]) -> int:
    """The whole factor that brings an image of ``size`` (width, height) to at most MAX_WORKING_SIDE a side (1: it
    is not larger)."""
    return max(1, -(-max(size) // MAX_WORKING_SIDE))


def _bounded(image):  # PIL.Image.Image -> PIL.Image.Image
    """A decoded image larger than MAX_WORKING_SIDE a side shrunk by a whole factor (each pixel the mean of the
    factor × factor pixels it covers; Pillow lets other threads run meanwhile), else itself. A palette or bilevel
    image is first converted to the colours it shows (its grey palette kept grey, its transparency kept), a 16-bit
    one to 32-bit grey: their pixels cannot be averaged as they are."""
    factor = _factor(image.size)
    if factor == 1:
        return image
    if image.mode in ("P", "PA"):
        grey = _grey_palette(image)
        clear = image.mode == "PA" or "transparency" in image.info
        image = image.convert(("LA" if grey else "RGBA") if clear else ("L" if grey else "RGB"))
    elif image.mode == "1":
        image = image.convert("L")
    elif image.mode.startswith("I;16"):
        image = image.convert("I")
    return image.reduce(factor)


def _plain(image):  # PIL.Image.Image -> PIL.Image.Image
    """A loaded Pillow image of any mode as "L" or "RGB" (see :func:`open_image`)."""
    from PIL import Image

    if image.mode in ("I", "I;16", "I;16B", "I;16L", "I;16N", "F"):  # 16-bit (or wider) grey: scale, never clip
        values = np.asarray(image, dtype=np.float64)
        top = 65535.0 if image.mode != "F" else max(float(values.max()), 1.0)
        return Image.fromarray(np.clip(values / top * 255.0, 0, 255).astype(np.uint8), mode="L")
    grey = image.mode in ("L", "LA", "La", "1") or (image.mode in ("P", "PA") and _grey_palette(image))
    if image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        image = Image.new("RGB", rgba.size, (0, 0, 0))  # over black: colour × alpha (alpha_composite's own result,
        image.paste(rgba.convert("RGB"), mask=rgba.getchannel("A"))  # made by steps that let other threads run)
    return image.convert("L" if grey else "RGB")


def _grey_palette(image) -> bool:
    """Whether a palette image's colours are all greys."""
    palette = image.getpalette() or []
    triples = np.asarray(palette[: len(palette) // 3 * 3]).reshape(-1, 3)
    return bool(len(triples)) and bool((triples == triples[:, :1]).all())


def to_grey(image, side: int) -> np.ndarray:
    """An "L" or "RGB" Pillow image (:func:`open_image`) -> grey (side, side) float32 in [0, 1]: smaller images are
    enlarged bilinearly, larger ones shrunk with each pixel the mean of the area it covers."""
    from PIL import Image

    grey = image.convert("L")
    if grey.size != (side, side):
        shrinks = grey.width >= side and grey.height >= side
        grey = grey.resize((side, side), Image.Resampling.BOX if shrinks else Image.Resampling.BILINEAR)
    return np.asarray(grey, dtype=np.float32) / 255.0


def to_rgb(image, size: tuple[int, int] | None = None) -> np.ndarray:
    """An "L" or "RGB" Pillow image -> (height, width, 3) float32 in [0, 1], resized to ``size`` (width, height)
    where given (bilinear)."""
    from PIL import Image

    rgb = image.convert("RGB")
    if size is not None and rgb.size != size:
        rgb = rgb.resize(size, Image.Resampling.BILINEAR)
    return np.asarray(rgb, dtype=np.float32) / 255.0
