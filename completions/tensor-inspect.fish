# fish completion for tensor-inspect: options, dtype names, formats, and the tensor names
# of the file on the command line, for the main command, diff and validate. Installed to
# share/fish/vendor_completions.d/. tests/shell_integration.py fails when an option of a --help
# page is missing here: a line's -n condition names its command (__tensor_inspect_main, or
# diff/validate in __fish_seen_subcommand_from); a line without -n serves all three.
set -l dtypes bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 bfloat16 float32 float64 fp8e4m3 fp8e5m2 half float double char uchar short ushort int uint long ulong

# The tensor names of the file on the line, from its header (`--list0`: raw, NUL-ended).
# fish reads candidates one a line and a tab starts a description: a name holding a
# newline or a tab cannot be offered, and is left out; fish escapes what it inserts.
function __tensor_inspect_names
    for w in (commandline -opc)[2..-1]
        if test -e "$w"
            for name in (tensor-inspect "$w" --list0 2>/dev/null | string split0)
                string match -q -r '[\n\t]' -- $name; or printf '%s\n' $name
            end
            return
        end
    end
end

# The caps of --limit KEY=VALUE (the library's limit table; `--limit x=1` names them all).
set -l limits stream_bytes= buffer_bytes= npy_header_bytes= npy_header_depth= safetensors_header_bytes= index_bytes= json_depth= gguf_key_bytes= gguf_array_elements= zip_members= zip_ratio= pickle_bytes= pickle_values= pickle_memo= pickle_refs= pickle_depth= pickle_entries= remote_whole_bytes= remote_memory_bytes= out_of_order_bytes= broadcast_pairs= expression_elements= compute_elements= literal_bytes= manifest_bytes= onnx_initializers= onnx_dims= onnx_string_bytes= onnx_graph_depth= hdf5_objects= hdf5_name_bytes= hdf5_chunks= hdf5_chunk_bytes= dcp_metadata_bytes= dcp_chunks= dcp_grid_cells= aws_config_bytes=

function __tensor_inspect_main
    not __fish_seen_subcommand_from diff validate hash export
end

function __tensor_inspect_fail_on
    # A comma-separated list: the items after what is already typed.
    set -l token (commandline -ct)
    set -l head (string replace -r '[^,]*$' '' -- $token)
    for c in nan inf zero-tensor
        echo $head$c
    end
end

complete -c tensor-inspect -n '__fish_use_subcommand' -a diff -d 'compare two inputs tensor by tensor'
complete -c tensor-inspect -n '__fish_use_subcommand' -a validate -d 'check files against every rule of their format'
complete -c tensor-inspect -n '__fish_use_subcommand' -a hash -d 'a content hash per tensor, any format'
complete -c tensor-inspect -n '__fish_use_subcommand' -a export -d 'write tensors as .npy, .npz or .safetensors'
complete -c tensor-inspect -n '__fish_seen_subcommand_from export' -l name -x -d 'tensor name or glob'
complete -c tensor-inspect -n '__fish_seen_subcommand_from export' -l all -d 'every tensor'
complete -c tensor-inspect -n '__fish_seen_subcommand_from export' -s e -l expr -x -d 'tinygrad expression over x'
complete -c tensor-inspect -n '__fish_seen_subcommand_from export' -l dtype -x -a "$dtypes" -d 'cast the values'
complete -c tensor-inspect -n '__fish_seen_subcommand_from export' -s o -l output -r -F -d 'the file to write'
complete -c tensor-inspect -n '__fish_seen_subcommand_from export' -l format -x -a 'npy npz safetensors' -d 'the output format (for -o -)'
complete -c tensor-inspect -n '__fish_seen_subcommand_from export' -l force -d 'replace an existing output'
complete -c tensor-inspect -n '__fish_seen_subcommand_from export' -l limit -x -a "$limits" -d 'raise a resource cap: KEY=VALUE'
complete -c tensor-inspect -s h -l help -d 'show help'
complete -c tensor-inspect -n __tensor_inspect_main -l version -d 'version and git revision'
complete -c tensor-inspect -n __tensor_inspect_main -l dtype -x -a "$dtypes" -d 'dtype of a literal'
complete -c tensor-inspect -n __tensor_inspect_main -s e -l expr -x -d 'tinygrad expression over x'
complete -c tensor-inspect -n __tensor_inspect_main -l json -d 'one JSON object'
complete -c tensor-inspect -n __tensor_inspect_main -l jsonl -d 'one JSON object per tensor and line'
complete -c tensor-inspect -n __tensor_inspect_main -l strict -d 'fail where Tensor.data() fails'
complete -c tensor-inspect -n __tensor_inspect_main -l default-float -x -a 'float16 bfloat16 float32 float64'
complete -c tensor-inspect -n __tensor_inspect_main -l default-int -x -a "$dtypes"
complete -c tensor-inspect -n __tensor_inspect_main -l json-nonfinite -x -a 'string python'
complete -c tensor-inspect -n __tensor_inspect_main -l name -x -a '(__tensor_inspect_names)' -d 'tensor name or glob'
complete -c tensor-inspect -n __tensor_inspect_main -l all -d 'every tensor'
complete -c tensor-inspect -n __tensor_inspect_main -l list -d 'list the tensors'
complete -c tensor-inspect -n __tensor_inspect_main -l stored -d 'quantized weights as their stored parts'
complete -c tensor-inspect -n __tensor_inspect_main -l meta -d 'show metadata'
complete -c tensor-inspect -n __tensor_inspect_main -l list0 -d 'tensor names, NUL-ended, for scripts'
complete -c tensor-inspect -n __tensor_inspect_main -l overview -d 'grouped tensors, totals, architecture facts'
complete -c tensor-inspect -n __tensor_inspect_main -l format -x -a 'npy npz safetensors safetensors-index gguf pytorch dcp onnx hdf5 keras'
complete -c tensor-inspect -n __tensor_inspect_main -l raw -x -a "$dtypes" -d 'raw bytes of this dtype'
complete -c tensor-inspect -n __tensor_inspect_main -l shape -x -d 'shape of raw data'
complete -c tensor-inspect -n __tensor_inspect_main -l offset -x -d 'bytes to skip'
complete -c tensor-inspect -n __tensor_inspect_main -l byte-order -x -a 'little big'
complete -c tensor-inspect -n __tensor_inspect_main -l expect -x -a 'dtype= shape= ndim= format= nbytes=' -d 'KEY=VALUE check'
complete -c tensor-inspect -n __tensor_inspect_main -l assert -x -d 'boolean expression over x'
complete -c tensor-inspect -n __tensor_inspect_main -l graph -r -a 'text dot' -d 'lazy graph on stderr [text|dot]'
complete -c tensor-inspect -n __tensor_inspect_main -l view-as -x -d 'memoryview.cast'
complete -c tensor-inspect -n __tensor_inspect_main -s v -d 'more log output'
complete -c tensor-inspect -n __tensor_inspect_main -l limit -x -a "$limits" -d 'raise a resource cap: KEY=VALUE'
complete -c tensor-inspect -n __tensor_inspect_main -l header -d 'memoryview fields, no data read'
complete -c tensor-inspect -n __tensor_inspect_main -l full -d 'print every element'
complete -c tensor-inspect -n __tensor_inspect_main -l threshold -x -d 'summarize above N elements'
complete -c tensor-inspect -n __tensor_inspect_main -l edgeitems -x -d 'items at each end of a summarized axis'
complete -c tensor-inspect -n __tensor_inspect_main -l stats -d 'min max mean std absmax, nan/inf/zero counts'
complete -c tensor-inspect -n __tensor_inspect_main -l hist -d 'histogram of the finite values [BINS]'
complete -c tensor-inspect -n __tensor_inspect_main -l plot -r -F -d 'write a picture (.png .svg .pdf)'
complete -c tensor-inspect -n __tensor_inspect_main -l plot-kind -x -a 'hist heatmap' -d 'what --plot draws'
complete -c tensor-inspect -n __tensor_inspect_main -l fail-on -x -a '(__tensor_inspect_fail_on)' -d 'exit 1 for nan,inf,zero-tensor'
complete -c tensor-inspect -l token-file -r -F -d 'bearer token for URLs'
complete -c tensor-inspect -l cache -x -a '(__fish_complete_directories)' -d 'keep fetched blocks of URLs in DIR'
complete -c tensor-inspect -l cache-size -x -d 'most bytes the cache takes (500M, 20G)'
complete -c tensor-inspect -l timeout -x -d 'seconds a URL may take (TI_TIMEOUT)'
complete -c tensor-inspect -l no-sign-request -d 'send s3:// and gs:// requests unsigned'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff validate hash export' -s v -d 'more log output'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l name -x -d 'compare only matching tensors (glob)'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l rename -x -d 'FROM=TO'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l rename-regex -x -d 'REGEX=REPLACEMENT'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l rtol -x -d 'relative tolerance'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l atol -x -d 'absolute tolerance'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l nan-differs -d 'NaN vs NaN is a difference'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l exact -d 'compare bits'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l ignore-dtype -d 'values decide across dtypes'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l stored -d 'quantized weights as their stored parts'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l tolerance -x -a torch -d 'torch.testing.assert_close defaults per pair'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l names -x -a hf-gguf -d 'built-in name map'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l json -d 'one JSON object'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l jsonl -d 'one JSON line per pair, then a summary line'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l limit -x -a "$limits" -d 'raise a resource cap: KEY=VALUE'
complete -c tensor-inspect -n '__fish_seen_subcommand_from validate' -l json -d 'one JSON object'
complete -c tensor-inspect -n '__fish_seen_subcommand_from validate' -l strict -d 'exit 1 on warnings too'
complete -c tensor-inspect -n '__fish_seen_subcommand_from validate' -l limit -x -a "$limits" -d 'raise a resource cap: KEY=VALUE'
complete -c tensor-inspect -n '__fish_seen_subcommand_from hash' -l algo -x -a 'xxh3-128 sha256' -d 'hash function'
complete -c tensor-inspect -n '__fish_seen_subcommand_from hash' -l check -r -F -d 'verify against a manifest'
complete -c tensor-inspect -n '__fish_seen_subcommand_from hash' -l json -d 'a manifest (with --check: a report)'
complete -c tensor-inspect -n '__fish_seen_subcommand_from hash' -l quiet -d 'with --check: only what does not match'
complete -c tensor-inspect -n '__fish_seen_subcommand_from hash' -l limit -x -a "$limits" -d 'raise a resource cap: KEY=VALUE'
