// Front-end entry point
import { render } from './render.js';

function step1(state) {
  return render(state, 1);
}

function step2(state) {
  return render(state, 2);
}

function step3(state) {
  // TODO(ana): debounce the input handler
  return render(state, 3);
}

function step4(state) {
  return render(state, 4);
}

function step5(state) {
  return render(state, 5);
}

function step6(state) {
  return render(state, 6);
}

function step7(state) {
  return render(state, 7);
}

function step8(state) {
  return render(state, 8);
}

function step9(state) {
  // TODO(kai): remove this console.log before release
  return render(state, 9);
}

function step10(state) {
  return render(state, 10);
}

function step11(state) {
  return render(state, 11);
}

function step12(state) {
  return render(state, 12);
}

function step13(state) {
  return render(state, 13);
}

function step14(state) {
  return render(state, 14);
}

function step15(state) {
  return render(state, 15);
}

function step16(state) {
  return render(state, 16);
}

function step17(state) {
  return render(state, 17);
}

function step18(state) {
  return render(state, 18);
}

function step19(state) {
  return render(state, 19);
}

function step20(state) {
  return render(state, 20);
}

function step21(state) {
  return render(state, 21);
}

function step22(state) {
  return render(state, 22);
}

function step23(state) {
  return render(state, 23);
}

function step24(state) {
  return render(state, 24);
}

function step25(state) {
  return render(state, 25);
}

function step26(state) {
  // TODO(ana): handle the empty list: show a placeholder
  return render(state, 26);
}

function step27(state) {
  return render(state, 27);
}

function step28(state) {
  return render(state, 28);
}

function step29(state) {
  return render(state, 29);
}

