"""Real example logs for OpenCV's empty-input assertions (opencv/empty-image-assertion).

Needs opencv-python-headless importable next to torch, e.g.
``pip install --target DIR --no-deps opencv-python-headless==4.10.0.84``, then
``PYTHONPATH=DIR python tools/examples/generate.py opencv``.  cv2.imread of a path that does not
exist returns None, and the next OpenCV call asserts on the empty input.
"""
from __future__ import annotations

from generate import run_script

IMREAD_CVTCOLOR = r'''
import cv2
image = cv2.imread("data/images/frame_0001.jpg")   # no such file: imread returns None
rgb = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
'''

DATALOADER_WINDOWS_PATH = r'''
import cv2, torch
from torch.utils.data import DataLoader, Dataset

class Samples(Dataset):
    # paths written on Windows, read on Linux: the backslashes make every path wrong
    paths = [r"dataset\train\images\0001.jpg", r"dataset\train\images\0002.jpg"]
    def __len__(self):
        return len(self.paths)
    def __getitem__(self, i):
        img = cv2.imread(self.paths[i])
        img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
        return torch.from_numpy(img).permute(2, 0, 1)

for batch in DataLoader(Samples(), batch_size=2, num_workers=1):
    print(batch.shape)
'''

RESIZE_WITH_LOGGING = r'''
import logging, cv2
logging.basicConfig(level=logging.INFO, format="%(asctime)s | %(levelname)s | %(message)s")
log = logging.getLogger("infer")
log.info("loading weights from checkpoints/best.pth")
log.info("running on 1 image(s), input size 640")
img = cv2.imread("inputs/photo 01.JPG")
img = cv2.resize(img, (640, 640))
'''

VIDEO_READ = r'''
import cv2
cap = cv2.VideoCapture("clips/demo.mp4")   # missing file: isOpened() is False, read() gives (False, None)
ok, frame = cap.read()
print("read ok:", ok, flush=True)
gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
'''


def generate() -> None:
    e = "opencv/empty-image-assertion"
    run_script(e, "cv4.10-imread-missing-cvtcolor", IMREAD_CVTCOLOR)
    run_script(e, "cv4.10-dataloader-backslash-paths", DATALOADER_WINDOWS_PATH)
    run_script(e, "cv4.10-resize-logging", RESIZE_WITH_LOGGING)
    run_script(e, "cv4.10-video-read-none", VIDEO_READ)
