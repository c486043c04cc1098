"""What an image costs is bounded before and while it is decoded (issue 60.5: opening a 48 KB 50,000,000 × 1 PNG froze
the window 2 s, a 7,000² RGBA PNG 1 s, in Pillow steps that hold Python's lock): a strip is refused from its header,
never decoded; a JPEG larger than any model reads is decoded at a fraction of its size; any other image is shrunk by a
whole factor right after decoding, so conversions and compositing work on at most MAX_WORKING_SIDE a side. Asserted
on sizes and pixels, never on times (bench: scripts measure the event loop's gaps)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFile, JpegImagePlugin

from attnviz.core import images
from attnviz.core.images import MAX_ASPECT, MAX_WORKING_SIDE, ImageError, open_image


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims width × height grey pixels (a few bytes of data: a decoder would run long)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


@pytest.fixture()
def decoded(monkeypatch) -> list[tuple[str, tuple[int, int]]]:
    """(format, size) of every image Pillow decodes (its ``load``), at the size it decodes it."""
    sizes: list[tuple[str, tuple[int, int]]] = []
    real = ImageFile.ImageFile.load

    def load(self):
        if self.tile:  # (not yet decoded: this call decodes it)
            sizes.append((str(self.format), self.size))
        return real(self)

    monkeypatch.setattr(ImageFile.ImageFile, "load", load)
    monkeypatch.setattr(JpegImagePlugin.JpegImageFile, "load", load)
    return sizes


@pytest.mark.parametrize(("width", "height"), [(50_000_000, 1), (1, 10_000), (MAX_ASPECT * 10 + 1, 10)])
def test_a_strip_is_refused_from_its_header_and_never_decoded(tmp_path, decoded, width, height):
    path = tmp_path / "strip.png"
    path.write_bytes(_png_header(width, height))
    with pytest.raises(ImageError) as error:
        open_image(path)
    assert str(error.value) == (f"{path}: {width:,} × {height:,} pixels, a strip rather than a picture: attnviz reads "
                                f"images whose longer side is at most {MAX_ASPECT} times the shorter")
    assert decoded == []


def test_a_panorama_within_the_aspect_bound_is_read(tmp_path):
    Image.new("L", (MAX_ASPECT * 10, 10), 77).save(tmp_path / "wide.png")
    image = open_image(tmp_path / "wide.png")
    assert image.size == (MAX_ASPECT * 10, 10) and np.asarray(image).max() == 77


def test_a_larger_image_than_any_model_reads_is_shrunk_right_after_decoding(tmp_path, decoded):
    pattern = np.random.default_rng(0).integers(0, 256, (75, 2100), dtype=np.uint8)
    Image.fromarray(np.kron(pattern, np.ones((2, 2), np.uint8)), mode="L").save(tmp_path / "big.png")  # 4,200 × 150
    image = open_image(tmp_path / "big.png")
    assert decoded == [("PNG", (4200, 150))]
    assert image.size == (2100, 75) and max(image.size) <= MAX_WORKING_SIDE
    assert np.array_equal(np.asarray(image), pattern)  # (each pixel the mean of the 2 × 2 it covers)


def test_a_large_jpeg_is_decoded_at_a_fraction_of_its_size(tmp_path, decoded):
    ramp = np.linspace(0, 255, 4500, dtype=np.float32)[None, :].repeat(3000, axis=0).astype(np.uint8)
    Image.fromarray(ramp, mode="L").save(tmp_path / "photo.jpg", quality=90)
    image = open_image(tmp_path / "photo.jpg")
    assert decoded == [("JPEG", (2250, 1500))]  # (half its size: never the whole 13.5 million pixels)
    assert image.size == (2250, 1500)
    assert abs(float(np.asarray(image, np.float32)[:, -8:].mean()) - 255) < 3  # (still the ramp's right end)


def test_a_large_transparent_image_is_shrunk_before_it_is_laid_over_black(tmp_path, decoded):
    rgba = np.zeros((200, 4200, 4), np.uint8)
    rgba[..., 0], rgba[..., 3] = 200, 128  # red at half opacity
    Image.fromarray(rgba, mode="RGBA").save(tmp_path / "clear.png")
    image = open_image(tmp_path / "clear.png")
    assert decoded == [("PNG", (4200, 200))] and image.size == (2100, 100) and image.mode == "RGB"
    assert np.array_equal(np.unique(np.asarray(image).reshape(-1, 3), axis=0), [[100, 0, 0]])  # 200 × 128/255


@pytest.mark.parametrize("mode", ["P", "P with a transparent colour", "1", "I;16"])
def test_a_large_image_of_a_mode_that_cannot_be_averaged_is_converted_first(tmp_path, mode):
    grey = np.tile(np.array([[0, 255]], np.uint8), (200, 2100))  # 4,200 × 200: black and white columns
    options = {}
    if mode == "I;16":
        source = Image.fromarray(grey.astype(np.uint16) * 257)
    else:
        source = Image.fromarray(grey, mode="L").convert(mode[0])
        if mode != "P" and mode != "1":
            options["transparency"] = 7  # (a palette entry no pixel uses: every pixel stays opaque)
    source.save(tmp_path / "big.png", **options)
    image = open_image(tmp_path / "big.png")
    assert image.size == (2100, 100) and image.mode == "L"  # (a grey palette stays grey)
    assert np.abs(np.asarray(image, np.float32) - 127.5).max() <= 1  # (each the mean of a black and a white pixel)


def test_laying_transparency_over_black_is_alpha_compositings_result(tmp_path):
    rgba = Image.fromarray(np.random.default_rng(3).integers(0, 256, (40, 50, 4), dtype=np.uint8), mode="RGBA")
    expected = Image.alpha_composite(Image.new("RGBA", rgba.size, (0, 0, 0, 255)), rgba).convert("RGB")
    assert np.array_equal(np.asarray(images._plain(rgba)), np.asarray(expected))


def test_the_working_size_is_twice_the_largest_model_input():
    from attnviz.core.hf.folder import MAX_IMAGE_SIDE

    assert MAX_WORKING_SIDE == 2 * MAX_IMAGE_SIDE


def test_the_bounds_hold_for_a_file_path_as_for_a_name(tmp_path):
    path = Path(tmp_path / "strip.png")
    path.write_bytes(_png_header(40_000, 1))
    with pytest.raises(ImageError, match="a strip rather than a picture"):
        images.read_grey(str(path), 28)
