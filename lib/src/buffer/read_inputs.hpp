// buffer/read_inputs.hpp — the run's inputs (buffer.hpp's note_input_read, was_read_as_input)
// as stat(2) describes a file: one place that turns a `struct stat` into the key (device,
// inode, status change time) for the mapping, the side-file readers and safe_write.
#pragma once

#include <sys/stat.h>

namespace tensor_inspect {

/// note_input_read for the regular file `st` describes (st_dev, st_ino, st_ctim); nothing for
/// another kind of file.
void note_input_stat(const struct stat& st);
/// was_read_as_input for the file `st` describes.
bool was_read_as_input(const struct stat& st);

}  // namespace tensor_inspect
