# fish completion for tensor-inspect: options, dtype names, formats, and the tensor names
# of the file on the command line. Installed to share/fish/vendor_completions.d/.
set -l dtypes bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 bfloat16 float32 float64 fp8e4m3 fp8e5m2 half float double char uchar short ushort int uint long ulong

function __tensor_inspect_names
    for w in (commandline -opc)[2..-1]
        if test -e "$w"
            tensor-inspect "$w" --list 2>/dev/null | sed '1d;$d' | awk '{print $1}'
            return
        end
    end
end

function __tensor_inspect_no_diff
    not __fish_seen_subcommand_from diff
end

complete -c tensor-inspect -n '__fish_use_subcommand' -a diff -d 'compare two inputs tensor by tensor'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l help -d 'show help'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l version -d 'version and git revision'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l dtype -x -a "$dtypes" -d 'dtype of a literal'
complete -c tensor-inspect -n __tensor_inspect_no_diff -s e -l expr -x -d 'tinygrad expression over x'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l json -d 'one JSON object'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l jsonl -d 'one JSON object per tensor and line'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l strict -d 'fail where Tensor.data() fails'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l default-float -x -a 'float16 bfloat16 float32 float64'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l default-int -x -a "$dtypes"
complete -c tensor-inspect -n __tensor_inspect_no_diff -l json-nonfinite -x -a 'string python'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l name -x -a '(__tensor_inspect_names)' -d 'tensor name or glob'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l all -d 'every tensor'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l list -d 'list the tensors'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l meta -d 'show metadata'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l format -x -a 'npy npz safetensors safetensors-index gguf pytorch'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l raw -x -a "$dtypes" -d 'raw bytes of this dtype'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l shape -x -d 'shape of raw data'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l offset -x -d 'bytes to skip'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l byte-order -x -a 'little big'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l expect -x -a 'dtype= shape= ndim= format= nbytes=' -d 'KEY=VALUE check'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l assert -x -d 'boolean expression over x'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l graph -x -a 'text dot' -d 'lazy graph on stderr'
complete -c tensor-inspect -n __tensor_inspect_no_diff -l view-as -x -d 'memoryview.cast'
complete -c tensor-inspect -n __tensor_inspect_no_diff -s v -d 'more log output'
complete -c tensor-inspect -l token-file -r -F -d 'bearer token for URLs'
complete -c tensor-inspect -l cache -x -a '(__fish_complete_directories)' -d 'keep fetched blocks of URLs in DIR'
complete -c tensor-inspect -l cache-size -x -d 'most bytes the cache takes (500M, 20G)'
complete -c tensor-inspect -l timeout -x -d 'seconds to wait on a silent server (default 20)'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l name -x -d 'compare only matching tensors (glob)'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l rename -x -d 'FROM=TO'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l rename-regex -x -d 'REGEX=REPLACEMENT'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l rtol -x -d 'relative tolerance'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l atol -x -d 'absolute tolerance'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l nan-differs -d 'NaN vs NaN is a difference'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l exact -d 'compare bits'
complete -c tensor-inspect -n '__fish_seen_subcommand_from diff' -l json -d 'one JSON object'
