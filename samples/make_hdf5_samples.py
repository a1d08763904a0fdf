"""Writes samples/weights.h5 (h5py 3.7 over libhdf5 1.10.8) and samples/model.keras (a .keras
archive as Keras 3 writes one: zipfile, STORED, metadata.json, config.json, model.weights.h5
holding <layer>/vars/<i>; keras/src/saving/saving_lib.py). Run with the system python:
/usr/bin/python3 samples/make_hdf5_samples.py
"""
import io, json, os, zipfile

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

with h5py.File(os.path.join(HERE, "weights.h5"), "w", libver="earliest") as f:
  f["dense/kernel"] = np.array([[0.1, -0.2], [0.3, 1.5], [-2.25, 0.001]], dtype="f4")
  f["dense/bias"] = np.array([0.5, -0.5], dtype="f4")
  f["dense"].attrs["units"] = 2
  f.create_dataset("conv/weight", data=(np.arange(40, dtype="f4") / 8).reshape(4, 10), chunks=(2, 4), compression="gzip",
                   shuffle=True)
  f["big_endian_i4"] = np.array([1, -2, 65536, -2**31], dtype=">i4")
  f["mask"] = np.array([True, False, True])
  f["step"] = np.int64(1000)
  f.create_group("empty")

bio = io.BytesIO()
with h5py.File(bio, "w") as f:
  f.create_group("vars")
  f.create_group("layers/dense").create_group("vars")
  f["layers/dense/vars/0"] = np.array([[1.0, -1.0], [0.5, 0.25]], dtype="f4")
  f["layers/dense/vars/1"] = np.array([0.0, 0.125], dtype="f4")
with zipfile.ZipFile(os.path.join(HERE, "model.keras"), "w") as zf:
  zf.writestr(zipfile.ZipInfo("metadata.json", (2024, 1, 1, 0, 0, 0)),
              json.dumps({"keras_version": "3.3.3", "date_saved": "2024-01-01@00:00:00"}))
  zf.writestr(zipfile.ZipInfo("config.json", (2024, 1, 1, 0, 0, 0)), json.dumps({"class_name": "Sequential"}))
  zf.writestr(zipfile.ZipInfo("model.weights.h5", (2024, 1, 1, 0, 0, 0)), bio.getvalue())
