"""High-water-mark records and file-system checks (docs/leases.md cases 9 and 13, unit level),
and opening a slot path only when it is a regular file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snowid.errors import SlotEntryError, SlotQuarantinedError, UnsupportedFileSystemError
from snowid.lease._fs import check_state_dir, fs_type, open_slot, same_file
from snowid.lease._hwm import RECORD_SIZE, HwmFile, HwmRecord, decode_record, encode_record


def _file(tmp_path: Path) -> HwmFile:
    path = tmp_path / "slot"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    return HwmFile(fd, str(path))


def test_record_round_trip_and_zeros_mean_never_written() -> None:
    record = HwmRecord(7, 1_700_000_000_000, 3)
    assert decode_record(encode_record(record)) == record
    assert decode_record(b"\0" * RECORD_SIZE) is None
    assert decode_record(b"") is None


def test_every_single_bit_flip_is_detected() -> None:
    data = bytearray(encode_record(HwmRecord(1, 1_700_000_000_000, 1)))
    for bit in range(len(data) * 8):
        flipped = bytearray(data)
        flipped[bit // 8] ^= 1 << (bit % 8)
        assert decode_record(bytes(flipped)) is False, bit


def test_writes_alternate_and_the_newest_valid_record_wins(tmp_path: Path) -> None:
    hwm = _file(tmp_path)
    hwm.write(100, 1)
    hwm.write(200, 1)
    hwm.write(300, 2)  # overwrites A (seq 1)
    again = HwmFile(hwm.fd, hwm.path)
    assert again.load() == HwmRecord(3, 300, 2)
    # A torn write of the newest record (A): B (seq 2) still stands.
    os.pwrite(hwm.fd, b"\xff" * 10, 0)
    assert HwmFile(hwm.fd, hwm.path).load() == HwmRecord(2, 200, 1)


def test_truncated_newest_record_falls_back_to_the_other(tmp_path: Path) -> None:
    hwm = _file(tmp_path)
    hwm.write(100, 1)  # A
    hwm.write(200, 1)  # B
    os.ftruncate(hwm.fd, RECORD_SIZE + 20)  # B cut mid-record
    assert HwmFile(hwm.fd, hwm.path).load() == HwmRecord(1, 100, 1)


def test_both_records_corrupt_quarantines_the_slot(tmp_path: Path) -> None:
    hwm = _file(tmp_path)
    hwm.write(100, 1)
    hwm.write(200, 1)
    os.pwrite(hwm.fd, b"\x01", 30)
    os.pwrite(hwm.fd, b"\x01", RECORD_SIZE + 30)
    with pytest.raises(SlotQuarantinedError):
        HwmFile(hwm.fd, hwm.path).load()


def test_one_corrupt_record_and_one_never_written_quarantines(tmp_path: Path) -> None:
    """A lone mark that went bad cannot be told from a fresh slot by a zero B record."""
    hwm = _file(tmp_path)
    hwm.write(100, 1)
    os.pwrite(hwm.fd, b"\x01", 30)
    with pytest.raises(SlotQuarantinedError):
        HwmFile(hwm.fd, hwm.path).load()


def test_empty_file_is_a_fresh_slot(tmp_path: Path) -> None:
    assert _file(tmp_path).load() == HwmRecord(0, 0, 0)


def test_data_without_any_record_magic_is_a_foreign_file_not_a_corrupt_slot(
    tmp_path: Path,
) -> None:
    """A corrupt record still starts with the magic (case 9: quarantined); a file where
    neither record does was never a slot file, and the error says so."""
    hwm = _file(tmp_path)
    os.pwrite(hwm.fd, b"#!/bin/sh\necho not a slot\n", 0)
    with pytest.raises(SlotEntryError) as caught:
        hwm.load()
    assert (caught.value.kind, caught.value.path) == ("foreign", hwm.path)
    hwm.write(100, 1)  # a real record in A, then its checksum broken: corrupt, not foreign
    os.pwrite(hwm.fd, b"\x01", 30)
    with pytest.raises(SlotQuarantinedError):
        HwmFile(hwm.fd, hwm.path).load()


def test_open_slot_creates_a_regular_file_and_refuses_anything_else(tmp_path: Path) -> None:
    path = str(tmp_path / "slot-0001")
    with pytest.raises(FileNotFoundError):
        open_slot(path, create=False)
    fd = open_slot(path)
    identity = (os.fstat(fd).st_dev, os.fstat(fd).st_ino)
    os.close(fd)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert same_file(path, identity)
    os.rename(path, tmp_path / "real")
    os.symlink(tmp_path / "real", path)
    assert not same_file(path, identity)  # the path is a link now, even to the same file
    for create in (True, False):
        with pytest.raises(SlotEntryError) as caught:
            open_slot(path, create=create)
        assert caught.value.kind == "symlink"
    os.unlink(path)
    os.mkfifo(path)
    with pytest.raises(SlotEntryError) as caught:
        open_slot(path, create=False)  # O_RDONLY on a FIFO would block without O_NONBLOCK
    assert caught.value.kind == "special"
    assert not same_file(str(tmp_path / "missing"), identity)


MOUNTINFO = """\
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
40 27 0:50 / /mnt/nfs rw,relatime - nfs4 server:/export rw
41 27 0:51 / /mnt/smb rw,relatime - cifs //server/share rw
42 27 0:52 / /mnt/fuse rw,relatime - fuse.sshfs host:/x rw
43 27 0:53 / /run/user/0 rw,relatime - tmpfs tmpfs rw
44 27 0:54 / /mnt/with\\040space rw,relatime - nfs server:/y rw
"""


@pytest.mark.parametrize(
    ("path", "fstype"),
    [
        ("/mnt/nfs/state", "nfs4"),
        ("/mnt/smb", "cifs"),
        ("/mnt/fuse/a/b", "fuse.sshfs"),
        ("/mnt/with space/s", "nfs"),
    ],
)
def test_network_file_systems_are_refused(path: str, fstype: str) -> None:
    assert fs_type(path, MOUNTINFO) == fstype
    with pytest.raises(UnsupportedFileSystemError) as caught:
        check_state_dir(path, mountinfo=MOUNTINFO)
    assert (caught.value.path, caught.value.fstype) == (path, fstype)


def test_tmpfs_is_refused_unless_allowed() -> None:
    with pytest.raises(UnsupportedFileSystemError):
        check_state_dir("/run/user/0/snowid", mountinfo=MOUNTINFO)
    assert (
        check_state_dir("/run/user/0/snowid", allow_volatile=True, mountinfo=MOUNTINFO) == "tmpfs"
    )


def test_local_disk_is_accepted() -> None:
    assert check_state_dir("/var/lib/snowid", mountinfo=MOUNTINFO) == "ext4"
    assert check_state_dir("/mnt/nfsother", mountinfo=MOUNTINFO) == "ext4"  # not under /mnt/nfs
