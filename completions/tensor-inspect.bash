# bash completion for tensor-inspect: options, dtype names, formats, and the tensor names
# of the file on the command line (from its header: `tensor-inspect FILE --list`).
# Installed to share/bash-completion/completions/tensor-inspect; or: source this file.

_tensor_inspect_names() {
  # The listing's first column, without the header row and the summary line.
  local file=$1
  [[ -n $file && -e $file ]] || return
  tensor-inspect "$file" --list 2>/dev/null | sed '1d;$d' | awk '{print $1}'
}

_tensor_inspect() {
  local cur prev words cword
  _init_completion || return
  local dtypes="bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 bfloat16 float32 float64 fp8e4m3 fp8e5m2
                half float double char uchar short ushort int uint long ulong"
  local opts="--help --version --dtype -e --expr --json --jsonl --strict --default-float --default-int --json-nonfinite
              --name --all --list --meta --format --raw --shape --offset --byte-order --expect --assert --graph --view-as -v
              --token-file --cache --cache-size --timeout"
  local diff_opts="--help --name --rename --rename-regex --rtol --atol --nan-differs --exact --json --token-file --cache --cache-size --timeout"
  local sub="" file="" i w
  for ((i = 1; i < cword; i++)); do
    w=${words[i]}
    case $w in
      diff) [[ -z $sub && -z $file ]] && { sub=diff; continue; } ;;
      -e | --expr | --dtype | --raw | --format | --shape | --offset | --byte-order | --graph | --view-as | --name | \
        --expect | --assert | --default-float | --default-int | --json-nonfinite | --rename | --rename-regex | --rtol | --atol | \
        --token-file | --cache | --cache-size | --timeout)
        ((i++)); continue ;;
      -*) continue ;;
    esac
    [[ -z $file ]] && file=$w
  done
  case $prev in
    --dtype | --raw | --default-float | --default-int)
      COMPREPLY=($(compgen -W "$dtypes" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "npy npz safetensors safetensors-index gguf pytorch" -- "$cur")); return ;;
    --byte-order) COMPREPLY=($(compgen -W "little big" -- "$cur")); return ;;
    --json-nonfinite) COMPREPLY=($(compgen -W "string python" -- "$cur")); return ;;
    --graph) COMPREPLY=($(compgen -W "text dot" -- "$cur")); return ;;
    --cache) _filedir -d; return ;;
    --token-file) _filedir; return ;;
    --expect)
      compopt -o nospace
      if [[ $cur == dtype=* ]]; then
        COMPREPLY=($(compgen -P dtype= -W "$dtypes" -- "${cur#dtype=}"))
      else
        COMPREPLY=($(compgen -W "dtype= shape= ndim= format= nbytes=" -- "$cur"))
      fi
      return ;;
    --name)
      local IFS=$'\n'
      COMPREPLY=($(compgen -W "$(_tensor_inspect_names "$file")" -- "$cur"))
      return ;;
    -e | --expr | --assert | --shape | --offset | --view-as | --rename | --rename-regex | --rtol | --atol | --cache-size | --timeout) return ;;
  esac
  if [[ $cur == -* ]]; then
    if [[ $sub == diff ]]; then COMPREPLY=($(compgen -W "$diff_opts" -- "$cur"))
    else COMPREPLY=($(compgen -W "$opts" -- "$cur")); fi
    return
  fi
  _filedir
  [[ -z $sub && -z $file ]] && COMPREPLY+=($(compgen -W "diff" -- "$cur"))
}
complete -F _tensor_inspect tensor-inspect
