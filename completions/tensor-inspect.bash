# bash completion for tensor-inspect: options (of the main command, diff and validate), dtype
# names, formats, the other fixed value sets, and the tensor names of the file on the command
# line (from its header: `tensor-inspect FILE --list0`, each name raw and NUL-ended).
# Installed to share/bash-completion/completions/tensor-inspect; or: source this file.
# tests/shell_integration.py fails when an option of a --help page is missing here.

_tensor_inspect_dequote() {
  # The word as the shell will pass it, for matching names: after a leading ' or ", or
  # without one each backslash taking the next character as it is. Never eval'ed.
  local w=$1 out="" i c
  case $w in
    \'*) w=${w#\'}; printf %s "${w%\'}"; return ;;
    \"*) w=${w#\"}; w=${w%\"} ;;
  esac
  for ((i = 0; i < ${#w}; i++)); do
    c=${w:i:1}
    if [[ $c == \\ ]]; then ((i++)); c=${w:i:1}; fi
    out+=$c
  done
  printf %s "$out"
}

_tensor_inspect_names() {
  # COMPREPLY: the names of the file's tensors that start with the word typed, each quoted
  # for the shell (printf %q), so spaces, quotes, backslashes and newlines arrive intact.
  local file=$1 want name quoted
  COMPREPLY=()
  [[ $file == "~/"* ]] && file=$HOME/${file#"~/"}
  [[ -n $file && -e $file ]] || return
  want=$(_tensor_inspect_dequote "$cur")
  while IFS= read -r -d '' name; do
    [[ $name == "$want"* ]] || continue
    printf -v quoted %q "$name"
    COMPREPLY+=("$quoted")
  done < <(tensor-inspect "$file" --list0 2>/dev/null)
}

_tensor_inspect_list_value() {
  # A comma-separated list (--fail-on nan,inf): complete the item after the last comma.
  local items=$1 head="" tail=$cur
  if [[ $cur == *,* ]]; then head=${cur%,*},; tail=${cur##*,}; fi
  compopt -o nospace
  COMPREPLY=($(compgen -P "$head" -W "$items" -- "$tail"))
}

_tensor_inspect() {
  local cur prev words cword
  _init_completion || return
  local dtypes="bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 bfloat16 float32 float64 fp8e4m3 fp8e5m2
                half float double char uchar short ushort int uint long ulong"
  # The caps of --limit KEY=VALUE (the library's limit table; `--limit x=1` names them all).
  local limits="stream_bytes buffer_bytes npy_header_bytes npy_header_depth safetensors_header_bytes index_bytes json_depth
                gguf_key_bytes gguf_array_elements zip_members zip_ratio pickle_bytes pickle_values pickle_memo pickle_refs
                pickle_depth pickle_entries remote_whole_bytes remote_memory_bytes out_of_order_bytes broadcast_pairs expression_elements compute_elements literal_bytes
                manifest_bytes onnx_initializers onnx_dims onnx_string_bytes onnx_graph_depth hdf5_objects hdf5_name_bytes hdf5_chunks hdf5_chunk_bytes
                dcp_metadata_bytes dcp_chunks dcp_grid_cells aws_config_bytes"
  local remote_opts="--token-file --cache --cache-size --timeout --no-sign-request"
  local opts="-h --help --version --dtype -e --expr --json --strict --default-float --default-int --json-nonfinite
              --name --all --jsonl --list --stored --meta --list0 --overview --format --raw --shape --offset --byte-order --expect --assert
              --graph --view-as -v --limit --header --full --threshold --edgeitems
              --stats --hist --plot --plot-kind --fail-on $remote_opts"
  local diff_opts="-h --help --name --rename --rename-regex --rtol --atol --nan-differs --exact --ignore-dtype --stored --tolerance --names --json --jsonl --limit -v $remote_opts"
  local validate_opts="-h --help --json --strict --limit -v $remote_opts"
  local hash_opts="-h --help --algo --check --json --quiet --limit -v $remote_opts"
  local export_opts="-h --help --name --all -e --expr --dtype -o --output --format --force --limit -v $remote_opts"
  local subcommands="diff validate hash export"
  local sub="" file="" i w
  for ((i = 1; i < cword; i++)); do
    w=${words[i]}
    case $w in
      diff | validate | hash | export) [[ -z $sub && -z $file ]] && { sub=$w; continue; } ;;
      -e | --expr | --dtype | --raw | --format | --shape | --offset | --byte-order | --view-as | --name | \
        --expect | --assert | --default-float | --default-int | --json-nonfinite | --rename | --rename-regex | --rtol | --atol | \
        --limit | --threshold | --edgeitems | --plot | --plot-kind | --fail-on | --tolerance | --names | --algo | --check | -o | --output | \
        --token-file | --cache | --cache-size | --timeout)
        ((i++)); continue ;;
      # Optional values: the next word is one only when it looks like one (`--hist x.npy` is the input).
      --graph) [[ ${words[i + 1]} =~ ^(text|dot)$ ]] && ((i++)); continue ;;
      --hist) [[ ${words[i + 1]} =~ ^[0-9]+$ ]] && ((i++)); continue ;;
      -*) continue ;;
    esac
    [[ -z $file ]] && file=$(_tensor_inspect_dequote "$w")  # as typed: 'my model.safetensors' is a path with a space
  done
  case $prev in
    --dtype | --raw | --default-float | --default-int)
      COMPREPLY=($(compgen -W "$dtypes" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "npy npz safetensors safetensors-index gguf pytorch dcp onnx hdf5 keras" -- "$cur")); return ;;
    --byte-order) COMPREPLY=($(compgen -W "little big" -- "$cur")); return ;;
    --json-nonfinite) COMPREPLY=($(compgen -W "string python" -- "$cur")); return ;;
    --graph) COMPREPLY=($(compgen -W "text dot" -- "$cur")); ((${#COMPREPLY[@]})) && return ;;  # else options or INPUT
    --plot-kind) COMPREPLY=($(compgen -W "hist heatmap" -- "$cur")); return ;;
    --tolerance) COMPREPLY=($(compgen -W "torch" -- "$cur")); return ;;
    --names) COMPREPLY=($(compgen -W "hf-gguf" -- "$cur")); return ;;
    --algo) COMPREPLY=($(compgen -W "xxh3-128 sha256" -- "$cur")); return ;;
    --fail-on) _tensor_inspect_list_value "nan inf zero-tensor"; return ;;
    --limit)
      compopt -o nospace
      COMPREPLY=($(compgen -S = -W "$limits" -- "$cur"))
      return ;;
    --cache) _filedir -d; return ;;
    --token-file | --plot | --check | -o | --output) _filedir; return ;;
    --expect)
      compopt -o nospace
      if [[ $cur == dtype=* ]]; then
        COMPREPLY=($(compgen -P dtype= -W "$dtypes" -- "${cur#dtype=}"))
      else
        COMPREPLY=($(compgen -W "dtype= shape= ndim= format= nbytes=" -- "$cur"))
      fi
      return ;;
    --name) _tensor_inspect_names "$file"; return ;;
    -e | --expr | --assert | --shape | --offset | --view-as | --rename | --rename-regex | --rtol | --atol | --cache-size | \
      --timeout | --threshold | --edgeitems) return ;;
  esac
  if [[ $cur == -* ]]; then
    case $sub in
      diff) COMPREPLY=($(compgen -W "$diff_opts" -- "$cur")) ;;
      validate) COMPREPLY=($(compgen -W "$validate_opts" -- "$cur")) ;;
      hash) COMPREPLY=($(compgen -W "$hash_opts" -- "$cur")) ;;
      export) COMPREPLY=($(compgen -W "$export_opts" -- "$cur")) ;;
      *) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
    esac
    return
  fi
  _filedir
  [[ -z $sub && -z $file ]] && COMPREPLY+=($(compgen -W "$subcommands" -- "$cur"))
}
complete -F _tensor_inspect tensor-inspect
