"""Real images for the quantization accuracy measurements (docs/quantization.md
"Accuracy"): the sample photographs and scans that the scikit-image wheel
ships in `skimage/data` (installed --no-deps by scripts/setup.sh from
scripts/requirements-models.txt; only the files are read, skimage is never
imported, nothing is downloaded), decoded with Pillow, and the
preprocessing of each measured model.

The calibration and evaluation sets are disjoint (CALIBRATION, EVALUATION).
"""
import importlib.util
import os

import numpy as np

# Photographs (astronaut, coffee, cat, rocket, motorcycles, microscopy,
# a deep-field telescope image), a photograph of handwriting (text) and a
# scanned printed page, split so that each set has photographs, grey-level
# images and text. The page is the only printed text: its top half's left
# and right parts calibrate, its bottom half's evaluate
# ("name:y0:y1:x0:x1" crops rows [y0 h, y1 h) and columns [x0 w, x1 w)).
CALIBRATION = ["astronaut", "camera", "chelsea", "coffee", "coins", "grass",
               "horse", "motorcycle_left", "text", "page:0:.5:0:.5", "page:0:.5:.5:1"]
EVALUATION = ["cell", "color", "gravel", "hubble_deep_field", "ihc", "motorcycle_right",
              "retina", "rocket", "page:.5:1:0:.5", "page:.5:1:.5:1"]

# More evaluation text for the detectors (PP-OCRv4 det's minimum cosine over
# two crops is noisy): other crops of the page's bottom half, at other text
# sizes once letterboxed (the whole half: the text at 0.83x; thirds: 2.5x;
# the middle half: 1.67x, offset from the two crops above). No other printed
# text image is shipped by the packages the project installs (searched: the
# PyPI wheels in scripts/requirements*.txt, paddleocr's wheel, the Debian
# packages on the build machine; opencv-doc's samples would be one, 96 MB).
# Still disjoint from CALIBRATION (the page's top half).
TEXT_CALIBRATION = ["page:0:.5:0:1", "page:0:.5:0:.34", "page:0:.5:.33:.67",
                    "page:0:.5:.66:1"]
TEXT_EVALUATION = ["page:.5:1:0:1", "page:.5:1:0:.34", "page:.5:1:.33:.67",
                   "page:.5:1:.66:1", "page:.5:1:.25:.75"]


def image_dir():
    """skimage/data of the running Python, or None."""
    spec = importlib.util.find_spec("skimage")  # does not import skimage
    if spec is None or not spec.submodule_search_locations:
        return None
    d = os.path.join(list(spec.submodule_search_locations)[0], "data")
    return d if os.path.isdir(d) else None


def missing():
    """Why real images cannot be loaded, or None."""
    if importlib.util.find_spec("PIL") is None:
        return "Pillow is not installed (scripts/requirements.txt)"
    d = image_dir()
    if d is None:
        return "scikit-image's sample images are not installed (scripts/requirements-models.txt)"
    lacking = [n for n in CALIBRATION + EVALUATION + TEXT_CALIBRATION + TEXT_EVALUATION if path(n.split(":")[0]) is None]
    return f"skimage/data lacks {lacking}" if lacking else None


def path(name):
    for ext in (".png", ".jpg"):
        p = os.path.join(image_dir(), name + ext)
        if os.path.exists(p):
            return p
    return None


def load(name):
    """The image (or crop, "name:y0:y1:x0:x1") as H x W x 3 uint8 RGB (grey and
    RGBA converted)."""
    from PIL import Image
    base, *crop = name.split(":")
    with Image.open(path(base)) as im:
        rgb = np.asarray(im.convert("RGB"))
    if crop:
        y0, y1, x0, x1 = map(float, crop)
        h, w = rgb.shape[:2]
        rgb = rgb[int(y0 * h):int(y1 * h), int(x0 * w):int(x1 * w)]
    return np.ascontiguousarray(rgb)


def file_stem(name):
    """A file name for an image or crop name."""
    return name.replace(":", "_").replace(".", "")


def resize(rgb, width, height):
    """Bilinear resize of an H x W x 3 uint8 image."""
    from PIL import Image
    return np.asarray(Image.fromarray(rgb).resize((width, height), Image.BILINEAR))


def imagenet(name, size=224):
    """1 x 3 x size x size, resized whole, ImageNet mean/std (ResNet-50, MobileNetV2)."""
    x = resize(load(name), size, size).astype(np.float32) / 255
    x = (x - np.array([0.485, 0.456, 0.406], np.float32)) / np.array([0.229, 0.224, 0.225],
                                                                      np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None], dtype=np.float32)


def letterbox(rgb, size, fill):
    """Scaled to fit size x size keeping the aspect ratio, top-left, padded with fill."""
    h, w = rgb.shape[:2]
    r = min(size / h, size / w)
    nh, nw = max(1, int(h * r)), max(1, int(w * r))
    out = np.full((size, size, 3), fill, np.uint8)
    out[:nh, :nw] = resize(rgb, nw, nh)
    return out


def ppocr_det(name, size=320):
    """PP-OCRv4 detection input (rapidocr's mean = std = 0.5), letterboxed to size, RGB->BGR
    as rapidocr feeds OpenCV images."""
    x = letterbox(load(name), size, 0)[:, :, ::-1].astype(np.float32) / 255
    x = (x - 0.5) / 0.5
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None], dtype=np.float32)


def yolox(name, size=416):
    """ddddocr's YOLOX detector input: letterboxed with grey 114, BGR, raw 0..255."""
    x = letterbox(load(name), size, 114)[:, :, ::-1].astype(np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None], dtype=np.float32)
