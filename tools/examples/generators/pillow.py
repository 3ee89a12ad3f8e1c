"""Real example logs for Pillow's image-loading errors (pillow/* entries).

Needs Pillow importable next to torch, e.g. ``pip install --target DIR pillow==11.3.0``, then
``PYTHONPATH=DIR python tools/examples/generate.py pillow``.  Every script writes its own broken
image files into its working directory first (a cut JPEG, an HTML page saved as .jpg, a large
blank PNG), so nothing is downloaded.
"""
from __future__ import annotations

from generate import run_script

# A JPEG cut after 60 % of its bytes, opened lazily and decoded by convert("RGB").
MAKE_TRUNCATED = r'''
import io, random
from PIL import Image
random.seed(0)
im = Image.frombytes("RGB", (512, 512), bytes(random.getrandbits(8) for _ in range(512 * 512 * 3)))
buf = io.BytesIO(); im.save(buf, "JPEG", quality=90); data = buf.getvalue()
with open("img_00017.jpg", "wb") as fh:
    fh.write(data[: int(len(data) * 0.6)])
'''

TRUNCATED_PLAIN = MAKE_TRUNCATED + r'''
from PIL import Image
img = Image.open("img_00017.jpg")
print("opened", img.format, img.size, flush=True)
img = img.convert("RGB").resize((224, 224))
'''

TRUNCATED_DATALOADER = MAKE_TRUNCATED + r'''
import shutil, torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
for i in range(4):
    if i != 2:
        Image.new("RGB", (64, 64), (i * 40, 0, 0)).save(f"img_{i:05d}.jpg")
shutil.copy("img_00017.jpg", "img_00002.jpg")

class Folder(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        img = Image.open(f"img_{i:05d}.jpg").convert("RGB").resize((32, 32))
        return torch.tensor(list(img.getdata()), dtype=torch.uint8).view(32, 32, 3)

for step, batch in enumerate(DataLoader(Folder(), batch_size=1, num_workers=2)):
    print("step", step, tuple(batch.shape), flush=True)
'''

TRUNCATED_LOGGING = MAKE_TRUNCATED + r'''
import logging
from PIL import Image
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("preprocess")
log.info("resizing 1 images to 256px into ./cache")
log.info("img_00017.jpg")
Image.open("img_00017.jpg").thumbnail((256, 256))
'''

UNIDENTIFIED_PLAIN = r'''
with open("cat_0412.jpg", "wb") as fh:  # an HTML error page saved under an image name
    fh.write(b"<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body>Forbidden</body></html>")
from PIL import Image
img = Image.open("cat_0412.jpg").convert("RGB")
'''

UNIDENTIFIED_BYTESIO = r'''
import io
from PIL import Image
payload = b""  # an empty HTTP body or an empty row of a parquet image column
img = Image.open(io.BytesIO(payload))
'''

UNIDENTIFIED_DATALOADER = r'''
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
Image.new("RGB", (48, 48)).save("0.png")
open("1.png", "wb").close()  # a zero-byte file left by an interrupted copy

class Pngs(Dataset):
    def __len__(self):
        return 2
    def __getitem__(self, i):
        return torch.tensor(Image.open(f"{i}.png").convert("L").size)

for batch in DataLoader(Pngs(), batch_size=1, num_workers=1):
    print(batch, flush=True)
'''

ANTIALIAS_PLAIN = r'''
from PIL import Image
img = Image.new("RGB", (640, 480))
thumb = img.resize((320, 240), Image.ANTIALIAS)
'''

ANTIALIAS_HELPER = r'''
import PIL
from PIL import Image
print("Pillow", PIL.__version__, flush=True)

def resize_keep_ratio(img, width, resample=Image.ANTIALIAS):
    h = int(img.height * width / img.width)
    return img.resize((width, h), resample)

resize_keep_ratio(Image.new("RGB", (800, 600)), 400)
'''

ANTIALIAS_LINEAR = r'''
import PIL.Image
img = PIL.Image.new("L", (100, 100))
small = img.resize((50, 50), PIL.Image.LINEAR)
'''

BOMB_PLAIN = r'''
from PIL import Image
Image.new("1", (20000, 20000)).save("scan_page_003.png")  # 400 Mpixel, bilevel: a small file
img = Image.open("scan_page_003.png")
'''

BOMB_DATALOADER = r'''
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
Image.new("1", (19000, 19000)).save("tile_big.png")

class Tiles(Dataset):
    def __len__(self):
        return 1
    def __getitem__(self, i):
        return torch.tensor(Image.open("tile_big.png").size)

for batch in DataLoader(Tiles(), num_workers=1):
    print(batch)
'''

BOMB_LOWERED_LIMIT = r'''
import warnings
from PIL import Image
Image.MAX_IMAGE_PIXELS = 50_000_000  # a project that lowered the limit for its upload handler
Image.new("1", (12000, 10000)).save("ortho.png")
print("limit", Image.MAX_IMAGE_PIXELS, flush=True)
img = Image.open("ortho.png")
'''


def generate() -> None:
    e = "pillow/image-file-truncated"
    run_script(e, "p11-convert-cut-jpeg", TRUNCATED_PLAIN)
    run_script(e, "p11-dataloader-worker", TRUNCATED_DATALOADER)
    run_script(e, "p11-logging-thumbnail", TRUNCATED_LOGGING)
    e = "pillow/cannot-identify-image"
    run_script(e, "p11-html-saved-as-jpg", UNIDENTIFIED_PLAIN)
    run_script(e, "p11-empty-bytesio", UNIDENTIFIED_BYTESIO)
    run_script(e, "p11-dataloader-zero-byte-png", UNIDENTIFIED_DATALOADER)
    e = "pillow/resampling-constants-removed"
    run_script(e, "p11-resize-antialias", ANTIALIAS_PLAIN)
    run_script(e, "p11-default-argument", ANTIALIAS_HELPER)
    run_script(e, "p11-linear", ANTIALIAS_LINEAR)
    e = "pillow/decompression-bomb-error"
    run_script(e, "p11-open-large-png", BOMB_PLAIN)
    run_script(e, "p11-dataloader-worker", BOMB_DATALOADER)
    run_script(e, "p11-lowered-limit", BOMB_LOWERED_LIMIT)
